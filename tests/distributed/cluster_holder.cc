// Helper process for cluster_fixture_test: starts a TestCluster, writes the
// daemons' pids to the file named by argv[1], then waits to be killed. Its
// parent SIGKILLs it (so no destructor runs) and checks that the daemons die
// with it through PR_SET_PDEATHSIG.

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "tests/distributed/cluster_fixture.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: cluster_holder PIDS_FILE\n";
    return 2;
  }
  const std::string pids_file = argv[1];
  auto cluster = tributary::test::TestCluster::Start();
  if (!cluster.ok()) {
    std::cerr << cluster.status() << "\n";
    return 1;
  }
  {
    std::ofstream out(pids_file + ".tmp");
    out << absl::StrJoin((*cluster)->Pids(), " ") << "\n";
  }
  // Renamed into place, so the reader never sees half a line.
  if (std::rename((pids_file + ".tmp").c_str(), pids_file.c_str()) != 0) {
    return 1;
  }
  // Bounded, in case the parent dies first: then PR_SET_PDEATHSIG ends us.
  absl::SleepFor(absl::Seconds(120));
  return 0;
}
