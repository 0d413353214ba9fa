// The umbrella header: everything a user of reconsume needs.
#pragma once

#include "reconsume/admin.hpp"
#include "reconsume/client.hpp"
#include "reconsume/clock.hpp"
#include "reconsume/consumer.hpp"
#include "reconsume/consumer_config.hpp"
#include "reconsume/dead_letters.hpp"
#include "reconsume/error.hpp"
#include "reconsume/message.hpp"
#include "reconsume/producer.hpp"
#include "reconsume/reader.hpp"
#include "reconsume/redelivery_backoff.hpp"
#include "reconsume/retry_policy.hpp"
