package main

import (
	"os"
	"strings"
	"time"

	"github.com/apache/pulsar-client-go/pulsar"
	"github.com/apache/pulsar-client-go/pulsar/log"
	"github.com/sirupsen/logrus"
)

// clientOptionNames are the options every command takes.
var clientOptionNames = []string{"url", "ca", "verify-hostname", "token", "token-file", "timeout-ms"}

// newClient makes the pulsar.Client of a command: --url, and --ca, --verify-hostname, --token,
// --token-file for the secure broker. The client's own logs go to stderr, warnings and worse only.
func newClient(opts options, timeout time.Duration) (pulsar.Client, error) {
	url, err := opts.required("url")
	if err != nil {
		return nil, err
	}
	operationTimeout := min(max(timeout, time.Second), 30*time.Second)
	logger := logrus.New()
	logger.SetOutput(os.Stderr)
	logger.SetLevel(logrus.WarnLevel)
	clientOptions := pulsar.ClientOptions{
		URL:               url,
		OperationTimeout:  operationTimeout,
		ConnectionTimeout: min(operationTimeout, 10*time.Second),
		Logger:            log.NewLoggerWithLogrus(logger),
	}
	if opts.has("ca") {
		clientOptions.TLSTrustCertsFilePath = opts.text("ca", "")
		clientOptions.TLSValidateHostname = opts.has("verify-hostname")
	}
	token := opts.text("token", "")
	if opts.has("token-file") {
		data, err := os.ReadFile(opts.text("token-file", ""))
		if err != nil {
			return nil, err
		}
		token = strings.TrimSpace(string(data))
	}
	if token != "" {
		clientOptions.Authentication = pulsar.NewAuthenticationToken(token)
	}
	return pulsar.NewClient(clientOptions)
}
