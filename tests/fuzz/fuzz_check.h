#ifndef TRIBUTARY_TESTS_FUZZ_FUZZ_CHECK_H_
#define TRIBUTARY_TESTS_FUZZ_FUZZ_CHECK_H_

// What a fuzz target asserts about the code it drives. A broken property is
// a finding: the message goes to stderr and the process aborts, which
// libFuzzer reports as a crash and saves the input (tools/fuzz.sh).
//
// Errors are allowed, crashes are not: a parser may refuse any input, but
// with a status whose code says the input was bad. A status of another code
// (INTERNAL, UNKNOWN, OK with no content...) for a malformed input is a bug.

#include <initializer_list>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace tributary {
namespace fuzz {

// Aborts with `what` when `condition` is false.
void Check(bool condition, absl::string_view what);

// Aborts when `status` is an error whose code is not in `allowed`, or an
// error with an empty message (the user would not know what was wrong).
void CheckErrorCode(const absl::Status& status,
                    std::initializer_list<absl::StatusCode> allowed,
                    absl::string_view what);

}  // namespace fuzz
}  // namespace tributary

#endif  // TRIBUTARY_TESTS_FUZZ_FUZZ_CHECK_H_
