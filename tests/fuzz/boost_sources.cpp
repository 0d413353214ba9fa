// Boost.JSON and Boost.URL compiled from their headers into the fuzzing library, with the same
// instrumentation as our code: the fuzzer then gets coverage feedback from inside the JSON and URL
// parsers, which is how it learns to write inputs that get past them into ours.
#include <boost/json/src.hpp>
#include <boost/url/src.hpp>
