// Received (testonly): collects what one RecvAsync's done callback got, so
// a test can check whether it ran, how often, and with what. The callback
// may run on another thread; `done` is notified after the fields are set,
// so read them only once done.HasBeenNotified() (or after WaitForNotification).
//
//   test::Received r;
//   rendezvous.RecvAsync(key, args, r.Callback());
//   ASSERT_TRUE(r.called());
//   EXPECT_TRUE(r.status.ok());
#ifndef TRIBUTARY_COMMON_RENDEZVOUS_RECV_TESTUTIL_H_
#define TRIBUTARY_COMMON_RENDEZVOUS_RECV_TESTUTIL_H_

#include "absl/status/status.h"
#include "absl/synchronization/notification.h"
#include "common/framework/tensor.h"
#include "common/rendezvous/rendezvous.h"

namespace tributary {
namespace test {

struct Received {
  absl::Notification done;
  absl::Status status;
  Tensor value;
  bool is_dead = false;
    int calls = 0;

  bool called() const { return done.HasBeenNotified(); }

  // Borrows `this`: the Received must outlive the receive.
  RendezvousInterface::DoneCallback Callback() {
    return [this](const absl::Status& s, const RendezvousInterface::Args&,
                  const RendezvousInterface::Args&, const Tensor& v,
                  bool dead) {
      status = s;
      value = v;
      is_dead = dead;
      ++calls;
      // A second call notifies twice, which absl aborts on: a rendezvous
      // that calls back twice fails every test using this, not only the
      // ones that check `calls`.
      done.Notify();
    };
  }
};

}  // namespace test
}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RENDEZVOUS_RECV_TESTUTIL_H_
