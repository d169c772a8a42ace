#include "common/resource/resource_mgr.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "common/resource/var.h"
#include "gtest/gtest.h"

namespace tributary {
namespace {

// Counts live instances, so tests can see exactly when the manager lets go.
class Counter : public ResourceBase {
 public:
  explicit Counter(std::atomic<int>* live, int value = 0)
      : live_(live), value(value) {
    live_->fetch_add(1);
  }
  std::string DebugString() const override {
    return absl::StrCat("Counter ", value);
  }

 private:
  ~Counter() override { live_->fetch_sub(1); }
  std::atomic<int>* live_;

 public:
  int value;
};

// Another type, to check the type is part of the key.
class Other : public ResourceBase {
 public:
  std::string DebugString() const override { return "Other"; }
};

TEST(ResourceMgrTest, DefaultContainerIsLocalhost) {
  ResourceMgr rm;
  EXPECT_EQ(rm.default_container(), "localhost");
  ResourceMgr custom("job_ps");
  EXPECT_EQ(custom.default_container(), "job_ps");
}

TEST(ResourceMgrTest, CreateThenLookupSharesTheObject) {
  std::atomic<int> live{0};
  ResourceMgr rm;
  Counter* created = new Counter(&live, 7);
  ASSERT_TRUE(rm.Create("c", "x", created).ok());

  RefCountPtr<Counter> found;
  ASSERT_TRUE(rm.Lookup<Counter>("c", "x", &found).ok());
  EXPECT_EQ(found.get(), created);
  EXPECT_EQ(found->value, 7);
  // The manager and `found` each hold one reference.
  EXPECT_FALSE(found->RefCountIsOne());
  found.reset();
  EXPECT_EQ(live.load(), 1);
}

TEST(ResourceMgrTest, DuplicateCreateIsAlreadyExistsAndReleasesTheNewOne) {
  std::atomic<int> live{0};
  ResourceMgr rm;
  ASSERT_TRUE(rm.Create("c", "x", new Counter(&live)).ok());
  absl::Status s = rm.Create("c", "x", new Counter(&live));
  EXPECT_TRUE(errors::IsAlreadyExists(s)) << s;
  EXPECT_NE(std::string(s.message()).find("c/x"), std::string::npos) << s;
  EXPECT_EQ(live.load(), 1);  // The rejected resource was released.
}

TEST(ResourceMgrTest, LookupMissingNamesContainerAndResource) {
  std::atomic<int> live{0};
  ResourceMgr rm;
  Counter* c = nullptr;
  absl::Status s = rm.Lookup<Counter>("localhost", "w", &c);
  EXPECT_TRUE(errors::IsNotFound(s));
  EXPECT_EQ(s.message(),
            "Container localhost does not exist. (Could not find resource: "
            "localhost/w)");

  ASSERT_TRUE(rm.Create("localhost", "v", new Counter(&live)).ok());
  s = rm.Lookup<Counter>("localhost", "w", &c);
  EXPECT_TRUE(errors::IsNotFound(s));
  EXPECT_NE(std::string(s.message()).find("Resource localhost/w/"),
            std::string::npos)
      << s;
  EXPECT_NE(std::string(s.message()).find("does not exist"), std::string::npos);
}

TEST(ResourceMgrTest, TypeIsPartOfTheKey) {
  std::atomic<int> live{0};
  ResourceMgr rm;
  ASSERT_TRUE(rm.Create("c", "x", new Counter(&live)).ok());
  // Same name, other type: not found, and may be created alongside.
  Other* other = nullptr;
  EXPECT_TRUE(errors::IsNotFound(rm.Lookup<Other>("c", "x", &other)));
  ASSERT_TRUE(rm.Create("c", "x", new Other).ok());
  RefCountPtr<Other> found;
  EXPECT_TRUE(rm.Lookup<Other>("c", "x", &found).ok());
}

TEST(ResourceMgrTest, HandleWithWrongTypeIsRejected) {
  ResourceHandle handle =
      MakeResourceHandle<Other>("/device:CPU:0", "c", "x");
  absl::Status s = ValidateResourceType<Var>(handle);
  EXPECT_TRUE(errors::IsInvalidArgument(s));
  EXPECT_NE(std::string(s.message()).find("wrong type"), std::string::npos);
  EXPECT_NE(std::string(s.message()).find("tributary::Var"), std::string::npos)
      << s;
  EXPECT_TRUE(ValidateResourceType<Other>(handle).ok());
}

TEST(ResourceMgrTest, TypeErasedLookupAndDeleteByHandle) {
  std::atomic<int> live{0};
  ResourceMgr rm;
  ASSERT_TRUE(rm.Create("c", "x", new Counter(&live, 3)).ok());
  ResourceHandle handle = MakeResourceHandle<Counter>("", "c", "x");
  ResourceBase* base = nullptr;
  ASSERT_TRUE(rm.Lookup(handle, &base).ok());
  EXPECT_EQ(base->DebugString(), "Counter 3");
  base->Unref();

  ASSERT_TRUE(rm.Delete(handle).ok());
  EXPECT_EQ(live.load(), 0);
  absl::Status s = rm.Delete(handle);
  EXPECT_TRUE(errors::IsNotFound(s));
  EXPECT_EQ(s.message(), "Resource c/x/<unknown> does not exist.");
}

TEST(ResourceMgrTest, DeleteKeepsResourceAliveWhileAKernelHoldsIt) {
  std::atomic<int> live{0};
  ResourceMgr rm;
  ASSERT_TRUE(rm.Create("c", "x", new Counter(&live)).ok());
  RefCountPtr<Counter> held;
  ASSERT_TRUE(rm.Lookup<Counter>("c", "x", &held).ok());
  ASSERT_TRUE(rm.Delete<Counter>("c", "x").ok());
  EXPECT_EQ(live.load(), 1);  // Still in use.
  Counter* gone = nullptr;
  EXPECT_TRUE(errors::IsNotFound(rm.Lookup<Counter>("c", "x", &gone)));
  held.reset();
  EXPECT_EQ(live.load(), 0);
}

TEST(ResourceMgrTest, CleanupDropsOnlyThatContainer) {
  std::atomic<int> live{0};
  ResourceMgr rm;
  ASSERT_TRUE(rm.Create("a", "x", new Counter(&live)).ok());
  ASSERT_TRUE(rm.Create("a", "y", new Counter(&live)).ok());
  ASSERT_TRUE(rm.Create("b", "x", new Counter(&live)).ok());
  EXPECT_EQ(live.load(), 3);

  ASSERT_TRUE(rm.Cleanup("a").ok());
  EXPECT_EQ(live.load(), 1);
  EXPECT_FALSE(rm.HasContainer("a"));
  EXPECT_TRUE(rm.HasContainer("b"));
  Counter* c = nullptr;
  EXPECT_TRUE(errors::IsNotFound(rm.Lookup<Counter>("a", "x", &c)));
  RefCountPtr<Counter> b;
  EXPECT_TRUE(rm.Lookup<Counter>("b", "x", &b).ok());

  // Cleaning a missing container is fine (e.g. a second session reset).
  EXPECT_TRUE(rm.Cleanup("a").ok());
  EXPECT_TRUE(rm.Cleanup("never").ok());
}

TEST(ResourceMgrTest, DestructorReleasesEverything) {
  std::atomic<int> live{0};
  {
    ResourceMgr rm;
    ASSERT_TRUE(rm.Create("a", "x", new Counter(&live)).ok());
    ASSERT_TRUE(rm.Create("b", "y", new Counter(&live)).ok());
  }
  EXPECT_EQ(live.load(), 0);
}

TEST(ResourceMgrTest, LookupOrCreateCreatesOnceAndPropagatesCreatorErrors) {
  std::atomic<int> live{0};
  ResourceMgr rm;
  int calls = 0;
  std::function<absl::Status(Counter**)> creator = [&](Counter** out) {
    ++calls;
    *out = new Counter(&live, 5);
    return absl::OkStatus();
  };
  Counter* first = nullptr;
  ASSERT_TRUE(rm.LookupOrCreate<Counter>("c", "x", &first, creator).ok());
  Counter* second = nullptr;
  ASSERT_TRUE(rm.LookupOrCreate<Counter>("c", "x", &second, creator).ok());
  EXPECT_EQ(first, second);
  EXPECT_EQ(calls, 1);
  first->Unref();
  second->Unref();
  EXPECT_EQ(live.load(), 1);

  std::function<absl::Status(Counter**)> failing = [](Counter**) {
    return errors::ResourceExhausted("no memory for it");
  };
  Counter* none = nullptr;
  absl::Status s = rm.LookupOrCreate<Counter>("c", "y", &none, failing);
  EXPECT_TRUE(errors::IsResourceExhausted(s));
  EXPECT_EQ(none, nullptr);
}

TEST(ResourceMgrTest, ConcurrentLookupOrCreateMakesExactlyOne) {
  std::atomic<int> live{0};
  std::atomic<int> creations{0};
  ResourceMgr rm;
  constexpr int kThreads = 16;
  constexpr int kNames = 8;
  std::vector<std::thread> threads;
  std::vector<std::vector<Counter*>> seen(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 200; ++round) {
        const std::string name = absl::StrCat("v", round % kNames);
        std::function<absl::Status(Counter**)> creator = [&](Counter** out) {
          creations.fetch_add(1);
          *out = new Counter(&live);
          return absl::OkStatus();
        };
        Counter* c = nullptr;
        ASSERT_TRUE(rm.LookupOrCreate<Counter>("c", name, &c, creator).ok());
        if (round < kNames) seen[t].push_back(c);
        c->Unref();
        // Interleave plain lookups and an unrelated container's churn.
        RefCountPtr<Counter> again;
        ASSERT_TRUE(rm.Lookup<Counter>("c", name, &again).ok());
        EXPECT_EQ(again.get(), c);
        ASSERT_TRUE(
            rm.Create(absl::StrCat("t", t), name, new Counter(&live)).ok() ||
            round >= kNames);
        if (round % 50 == 49) {
          ASSERT_TRUE(rm.Cleanup(absl::StrCat("t", t)).ok());
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(creations.load(), kNames);
  for (int t = 1; t < kThreads; ++t) EXPECT_EQ(seen[t], seen[0]);
  rm.Clear();
  EXPECT_EQ(live.load(), 0);
}

TEST(ResourceMgrTest, DebugStringListsResources) {
  std::atomic<int> live{0};
  ResourceMgr rm;
  ASSERT_TRUE(rm.Create("localhost", "w", new Counter(&live, 9)).ok());
  const std::string text = rm.DebugString();
  EXPECT_NE(text.find("localhost"), std::string::npos) << text;
  EXPECT_NE(text.find("Counter 9"), std::string::npos) << text;
  EXPECT_NE(text.find(" w "), std::string::npos) << text;
}

TEST(VarTest, StartsUninitialisedWithItsDtype) {
  Var* var = new Var(DT_DOUBLE);
  {
    absl::ReaderMutexLock l(var->mu());
    EXPECT_FALSE(var->is_initialized);
    EXPECT_EQ(var->tensor()->dtype(), DT_DOUBLE);
  }
  var->Unref();
}

}  // namespace
}  // namespace tributary
