// The executor types of the pulsar:// backend.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>
#include <memory>

namespace reconsume::detail::pulsar {

// The client's I/O executor and the strands on it, by their concrete types. Through
// any_io_executor, each handler a strand runs would cost an allocation: Asio queries the inner
// executor's `blocking` property, and a type-erased executor returns that property in a new object.
using IoExecutor = boost::asio::io_context::executor_type;
using Strand = boost::asio::strand<IoExecutor>;
// A socket or timer keeps its strand in an any_io_executor, which holds an executor this small
// in place; a larger one would be allocated on each copy (every operation copies it).
static_assert(sizeof(Strand) <= sizeof(std::shared_ptr<void>) + sizeof(void*));

}  // namespace reconsume::detail::pulsar
