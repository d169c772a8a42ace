#include "kernels/math/einsum_spec.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/framework/status.h"

namespace tributary {
namespace {

constexpr int kLetters = 52;  // a-z, A-Z; "..." dimensions get ids after.

int LetterId(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + (c - 'A');
  return -1;
}

// One side of the equation: letter ids in order, -1 where "..." stands.
absl::StatusOr<std::vector<int>> ParseSubscripts(const std::string& s,
                                                 const std::string& equation) {
  std::vector<int> ids;
  bool ellipsis = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '.') {
      if (s.compare(i, 3, "...") != 0 || ellipsis) {
        return errors::InvalidArgument("Invalid ellipsis in einsum equation: ",
                                       equation);
      }
      ellipsis = true;
      ids.push_back(-1);
      i += 2;
      continue;
    }
    const int id = LetterId(s[i]);
    if (id < 0) {
      return errors::InvalidArgument("Invalid character '",
                                     std::string(1, s[i]),
                                     "' in einsum equation: ", equation);
    }
    ids.push_back(id);
  }
  return ids;
}

}  // namespace

absl::StatusOr<EinsumPlan> PlanEinsum(const std::string& equation,
                                      const std::vector<TensorShape>& inputs) {
  std::string eq;
  for (char c : equation) {
    if (c != ' ') eq.push_back(c);
  }
  std::vector<std::string> sides = absl::StrSplit(eq, "->");
  if (sides.size() != 2) {
    return errors::InvalidArgument(
        "Expecting exactly one '->' in einsum equation: ", equation);
  }
  std::vector<std::string> in_subs = absl::StrSplit(sides[0], ',');
  if (in_subs.size() != inputs.size() || in_subs.size() > 2) {
    return errors::InvalidArgument("Expecting ", inputs.size(),
                                   " input subscripts in equation '", equation,
                                   "' but got: ", in_subs.size());
  }

  EinsumPlan plan;
  plan.label_size.assign(kLetters, -1);
  int broadcast_dims = 0;
  std::vector<std::vector<int>> parsed;
  for (size_t i = 0; i < inputs.size(); ++i) {
    TRIB_ASSIGN_OR_RETURN(std::vector<int> ids,
                          ParseSubscripts(in_subs[i], equation));
    const int named = static_cast<int>(
        std::count_if(ids.begin(), ids.end(), [](int id) { return id >= 0; }));
    const bool has_ellipsis = named != static_cast<int>(ids.size());
    const int rank = inputs[i].dims();
    if (has_ellipsis ? rank < named : rank != named) {
      return errors::InvalidArgument("Input ", i, " to einsum has rank ", rank,
                                     " but subscripts '", in_subs[i], "' need ",
                                     has_ellipsis ? "at least " : "", named,
                                     " dimensions");
    }
    broadcast_dims = std::max(broadcast_dims, rank - named);
    parsed.push_back(std::move(ids));
  }
  plan.label_size.resize(kLetters + broadcast_dims, 1);
  for (int b = 0; b < broadcast_dims; ++b) plan.label_size[kLetters + b] = 1;

  for (size_t i = 0; i < inputs.size(); ++i) {
    const int rank = inputs[i].dims();
    const int named = static_cast<int>(std::count_if(
        parsed[i].begin(), parsed[i].end(), [](int id) { return id >= 0; }));
    const int own_broadcast = rank - named;
    std::vector<int> labels;
    for (int id : parsed[i]) {
      if (id >= 0) {
        labels.push_back(id);
        continue;
      }
      // Right-aligned: this input's broadcast dims are the last ones.
      for (int b = 0; b < own_broadcast; ++b) {
        labels.push_back(kLetters + broadcast_dims - own_broadcast + b);
      }
    }
    for (size_t a = 0; a < labels.size(); ++a) {
      const int id = labels[a];
      const int64_t size = inputs[i].dim_size(static_cast<int>(a));
      int64_t& known = plan.label_size[id];
      if (id < kLetters) {
        if (known >= 0 && known != size) {
          return errors::InvalidArgument(
              "Expected dimension ", known, " at axis ", a, " of input ", i,
              " of einsum '", equation, "' but got dimension ", size);
        }
        known = size;
      } else if (size != 1) {
        if (known != 1 && known != size) {
          return errors::InvalidArgument(
              "Einsum '", equation, "': broadcast dimensions of size ", known,
              " and ", size, " are incompatible");
        }
        known = size;
      }
    }
    // A label repeated within the input selects its diagonal: the kernel
    // works on the input with one axis per distinct label, in order of first
    // appearance (sizes were checked equal above).
    std::vector<int> distinct;
    for (int id : labels) {
      if (std::find(distinct.begin(), distinct.end(), id) == distinct.end()) {
        distinct.push_back(id);
      }
    }
    plan.raw_input_labels.push_back(std::move(labels));
    plan.input_labels.push_back(std::move(distinct));
  }

  TRIB_ASSIGN_OR_RETURN(std::vector<int> out_ids,
                        ParseSubscripts(sides[1], equation));
  bool out_ellipsis = false;
  for (int id : out_ids) {
    if (id >= 0) {
      if (std::count(plan.output_labels.begin(), plan.output_labels.end(), id) >
          0) {
        return errors::InvalidArgument("Output subscripts of einsum '",
                                       equation, "' repeat a label");
      }
      if (plan.label_size[id] < 0) {
        return errors::InvalidArgument(
            "Output subscripts of einsum '", equation,
            "' contain a label that appears in no input");
      }
      plan.output_labels.push_back(id);
      continue;
    }
    out_ellipsis = true;
    for (int b = 0; b < broadcast_dims; ++b) {
      plan.output_labels.push_back(kLetters + b);
    }
  }
  if (broadcast_dims > 0 && !out_ellipsis) {
    return errors::InvalidArgument(
        "Output contains ", broadcast_dims,
        " broadcasting dimension(s) but no ellipsis (...) was found in the "
        "output subscripts.");
  }
  for (int id : plan.output_labels) {
    TRIB_RETURN_IF_ERROR(
        plan.output_shape.AddDimWithStatus(plan.label_size[id]));
  }

  if (inputs.size() == 2) {
    auto has = [](const std::vector<int>& v, int id) {
      return std::find(v.begin(), v.end(), id) != v.end();
    };
    const auto& l0 = plan.input_labels[0];
    const auto& l1 = plan.input_labels[1];
    for (int id : plan.output_labels) {
      const bool in0 = has(l0, id), in1 = has(l1, id);
      if (in0 && in1) {
        plan.batch.push_back(id);
      } else if (in0) {
        plan.free0.push_back(id);
      } else {
        plan.free1.push_back(id);
      }
    }
    for (int id : l0) {
      if (has(l1, id) && !has(plan.output_labels, id)) {
        plan.contracted.push_back(id);
      }
    }
  }
  return plan;
}

}  // namespace tributary
