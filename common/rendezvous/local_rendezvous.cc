#include "common/rendezvous/local_rendezvous.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "common/framework/logging.h"
#include "common/framework/status.h"

namespace tributary {

using Args = RendezvousInterface::Args;
using DoneCallback = RendezvousInterface::DoneCallback;

namespace {

// One half of a pair waiting for the other: a sent value, or a receiver.
struct Item {
  bool is_send = false;
  Args args;  // the sender's or the receiver's
  // Sent value.
  Tensor value;
  bool is_dead = false;
  // Waiting receiver, and its cancellation registration (cm null: none).
  DoneCallback waiter;
  CancellationManager* cm = nullptr;
  CancellationToken token = CancellationManager::kInvalidToken;
};

absl::Status RecvCancelledError() {
  return errors::Cancelled("RecvAsync is cancelled.");
}

// Hands a waiting receiver its result. The cancellation callback is
// withdrawn first: the receiver may free its CancellationManager as soon as
// its callback has run. TryDeregisterCallback never blocks; if cancellation
// is running right now, that callback will find the item gone and do
// nothing.
void CompleteWaiter(Item* item, const absl::Status& status,
                    const Args& send_args, const Tensor& value, bool is_dead) {
  if (item->cm != nullptr) item->cm->TryDeregisterCallback(item->token);
  item->waiter(status, send_args, item->args, value, is_dead);
}

}  // namespace

struct LocalRendezvous::State {
  mutable absl::Mutex mu;
  absl::Status status ABSL_GUARDED_BY(mu);
  // Keyed by the canonical key string: at most one item per key, since a
  // duplicate on either side is an error.
  absl::flat_hash_map<std::string, Item> table ABSL_GUARDED_BY(mu);
};

LocalRendezvous::LocalRendezvous() : state_(std::make_shared<State>()) {}

LocalRendezvous::~LocalRendezvous() {
  bool pending;
  {
    absl::MutexLock lock(&state_->mu);
    pending = !state_->table.empty();
  }
  // Receivers still waiting must hear about it; their callbacks are the only
  // way their executors learn the step will not continue.
  if (pending) StartAbort(errors::Cancelled("LocalRendezvous deleted"));
}

absl::Status LocalRendezvous::Send(const ParsedKey& key, const Args& send_args,
                                   const Tensor& value, bool is_dead) {
  Item waiter;
  {
    absl::MutexLock lock(&state_->mu);
    if (!state_->status.ok()) return state_->status;
    auto it = state_->table.find(key.FullKey());
    if (it == state_->table.end()) {
      // Nobody is waiting yet: park the value for the receiver.
      Item item;
      item.is_send = true;
      item.args = send_args;
      item.value = value;
      item.is_dead = is_dead;
      state_->table.emplace(std::string(key.FullKey()), std::move(item));
      return absl::OkStatus();
    }
    if (it->second.is_send) {
      return errors::Aborted("Duplicated send: ", key.FullKey());
    }
    waiter = std::move(it->second);
    state_->table.erase(it);
  }
  // Outside the lock: the callback may re-enter the rendezvous (a receiver
  // that immediately sends onwards).
  CompleteWaiter(&waiter, absl::OkStatus(), send_args, value, is_dead);
  return absl::OkStatus();
}

void LocalRendezvous::RecvAsync(const ParsedKey& key, const Args& recv_args,
                                DoneCallback done) {
  absl::Status error;
  Item sent;
  bool have_value = false;
  {
    absl::MutexLock lock(&state_->mu);
    auto it = state_->table.find(key.FullKey());
    if (!state_->status.ok()) {
      error = state_->status;
    } else if (it != state_->table.end() && it->second.is_send) {
      sent = std::move(it->second);
      state_->table.erase(it);
      have_value = true;
    } else if (it != state_->table.end()) {
      error = errors::Aborted("Duplicated recv: ", key.FullKey());
    } else {
      // Park the receiver. With a cancellation manager, register under our
      // lock so that the callback, which takes the lock too, finds the item
      // once it can run (lock order: ours, then the manager's; the manager
      // runs callbacks without its own lock).
      Item item;
      item.args = recv_args;
      item.cm = recv_args.cancellation_manager;
      if (item.cm != nullptr) {
        item.token = item.cm->get_cancellation_token();
        std::weak_ptr<State> weak_state = state_;
        std::string key_string(key.FullKey());
        const bool registered = item.cm->RegisterCallback(
            item.token, [weak_state, key_string, cm = item.cm,
                         token = item.token] {
              std::shared_ptr<State> state = weak_state.lock();
              if (state == nullptr) return;  // rendezvous gone: aborted
              Item cancelled;
              {
                absl::MutexLock lock(&state->mu);
                auto it = state->table.find(key_string);
                // The same key may have been completed and re-requested
                // since; only the registration that owns this token goes.
                if (it == state->table.end() || it->second.is_send ||
                    it->second.cm != cm || it->second.token != token) {
                  return;
                }
                cancelled = std::move(it->second);
                state->table.erase(it);
              }
              // Inside the manager's callback: no deregistration needed.
              cancelled.waiter(RecvCancelledError(), Args(), cancelled.args,
                               Tensor(), /*is_dead=*/false);
            });
        if (!registered) error = RecvCancelledError();
      }
      if (error.ok()) {
        item.waiter = std::move(done);
        state_->table.emplace(std::string(key.FullKey()), std::move(item));
        return;
      }
    }
  }
  if (have_value) {
    done(absl::OkStatus(), sent.args, recv_args, sent.value, sent.is_dead);
  } else {
    done(error, Args(), recv_args, Tensor(), /*is_dead=*/false);
  }
}

void LocalRendezvous::StartAbort(const absl::Status& status) {
  DCHECK(!status.ok());
  absl::flat_hash_map<std::string, Item> table;
  absl::Status abort_status;
  {
    absl::MutexLock lock(&state_->mu);
    if (state_->status.ok()) {
      state_->status =
          status.ok() ? errors::Internal("Rendezvous aborted with OK status")
                      : status;
    }
    abort_status = state_->status;
    table.swap(state_->table);
  }
  // Values sent but never received are simply dropped with `table`.
  for (auto& entry : table) {
    Item& item = entry.second;
    if (!item.is_send) {
      CompleteWaiter(&item, abort_status, Args(), Tensor(), /*is_dead=*/false);
    }
  }
}

absl::Status LocalRendezvous::status() const {
  absl::MutexLock lock(&state_->mu);
  return state_->status;
}

int LocalRendezvous::NumPendingForTest() const {
  absl::MutexLock lock(&state_->mu);
  return static_cast<int>(state_->table.size());
}

}  // namespace tributary
