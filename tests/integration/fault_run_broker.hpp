// The fault run's hand on the shared Pulsar standalone: scripts/pulsar.sh kill and start, and the
// check that no other test (another work tree's) is using the broker before it is killed.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace reconsume::integration::faultrun {

// Runs `scripts/pulsar.sh <command>`; true when it succeeded.
bool pulsarScript(const std::string& command);

// Other processes running reconsume's integration or behaviour tests (pid and command line), this
// process and its ancestors excepted.
std::vector<std::string> otherBrokerUsers();

// Waits until otherBrokerUsers() is empty; false when `limit` passed first.
bool waitForOtherTests(std::chrono::seconds limit);

// SIGKILL, a second's pause, start again (pulsar.sh start waits until the broker is healthy).
// Returns the seconds from the kill until healthy; throws std::runtime_error when a step fails.
double killAndRestart();

// `scripts/pulsar.sh status`: the broker runs and answers its health check (a topic written and
// read back).
bool brokerHealthy();

// SIGTERM and start again, data kept: for a broker that stopped answering. Returns the seconds
// until it was healthy; throws std::runtime_error when a step fails.
double restartBroker();

// Prints to stderr what the broker's own log says last: the last 25 warnings and errors in
// scripts/pulsar.sh's log, a repeated one once with its count (a start truncates the log, so call
// it before any restart).
void printBrokerLog(const char* why);

}  // namespace reconsume::integration::faultrun
