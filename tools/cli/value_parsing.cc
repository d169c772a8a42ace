#include "tools/cli/value_parsing.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/framework/status.h"
#include "common/framework/tensor_shape.h"

namespace tributary {
namespace {

using json = nlohmann::json;

// The shape of a nested JSON array, checking every level is rectangular;
// leaves are collected row-major.
absl::Status Flatten(const json& v, size_t depth, std::vector<int64_t>* dims,
                     std::vector<const json*>* leaves) {
  if (!v.is_array()) {
    if (depth < dims->size()) {
      return errors::InvalidArgument("ragged array: a scalar where level ",
                                     depth, " expects a list of ",
                                     (*dims)[depth]);
    }
    leaves->push_back(&v);
    return absl::OkStatus();
  }
  if (depth == dims->size()) {
    // First time this level is seen: it defines the dim. Only the first
    // path reaches a new level, so later lists must match.
    if (!leaves->empty()) {
      return errors::InvalidArgument("ragged array: a list of ", v.size(),
                                     " where a scalar was expected");
    }
    dims->push_back(static_cast<int64_t>(v.size()));
  } else if ((*dims)[depth] != static_cast<int64_t>(v.size())) {
    return errors::InvalidArgument(
        "ragged array: a list of ", v.size(), " at level ", depth,
        " where earlier lists have ", (*dims)[depth]);
  }
  for (const json& e : v) {
    TRIB_RETURN_IF_ERROR(Flatten(e, depth + 1, dims, leaves));
  }
  // An empty list fixes the levels below it as absent: [[], []] is [2, 0].
  return absl::OkStatus();
}

bool IsSpecialFloat(const json& v, double* out) {
  if (!v.is_string()) return false;
  const std::string& s = v.get_ref<const std::string&>();
  const std::string lower = absl::AsciiStrToLower(s);
  if (lower == "nan") {
    *out = std::numeric_limits<double>::quiet_NaN();
  } else if (lower == "infinity" || lower == "inf" || lower == "+infinity") {
    *out = std::numeric_limits<double>::infinity();
  } else if (lower == "-infinity" || lower == "-inf") {
    *out = -std::numeric_limits<double>::infinity();
  } else {
    return false;
  }
  return true;
}

DataType InferDtype(const std::vector<const json*>& leaves) {
  bool any_float = false, any_int = false, any_bool = false, any_string = false;
  for (const json* v : leaves) {
    if (v->is_number_float()) {
      // 2.0 counts as a float literal, as in Python.
      any_float = true;
    } else if (v->is_number()) {
      any_int = true;
    } else if (v->is_boolean()) {
      any_bool = true;
    } else if (v->is_string()) {
      any_string = true;
    }
  }
  if (any_string) return tensorflow::DT_STRING;
  if (any_float) return tensorflow::DT_FLOAT;
  if (any_int) return tensorflow::DT_INT32;
  if (any_bool) return tensorflow::DT_BOOL;
  return tensorflow::DT_FLOAT;  // [] (numpy's default is float too).
}

std::string Show(const json& v) { return v.dump(); }

absl::Status ToDouble(const json& v, double* out) {
  if (v.is_number()) {
    *out = v.get<double>();
    return absl::OkStatus();
  }
  if (IsSpecialFloat(v, out)) return absl::OkStatus();
  return errors::InvalidArgument(Show(v), " is not a number");
}

template <typename T>
absl::Status FillFloating(const std::vector<const json*>& leaves, Tensor* t) {
  auto flat = t->flat<T>();
  for (size_t i = 0; i < leaves.size(); ++i) {
    double d;
    TRIB_RETURN_IF_ERROR(ToDouble(*leaves[i], &d));
    flat(i) = static_cast<T>(static_cast<float>(d));
  }
  return absl::OkStatus();
}

template <>
absl::Status FillFloating<double>(const std::vector<const json*>& leaves,
                                  Tensor* t) {
  auto flat = t->flat<double>();
  for (size_t i = 0; i < leaves.size(); ++i) {
    TRIB_RETURN_IF_ERROR(ToDouble(*leaves[i], &flat(i)));
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status FillInteger(const std::vector<const json*>& leaves, Tensor* t) {
  auto flat = t->flat<T>();
  const DataType dtype = DataTypeToEnum<T>::value;
  for (size_t i = 0; i < leaves.size(); ++i) {
    const json& v = *leaves[i];
    if (v.is_number_unsigned()) {
      const uint64_t u = v.get<uint64_t>();
      if (u > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
        return errors::InvalidArgument(Show(v), " does not fit in ",
                                       DataTypeString(dtype));
      }
      flat(i) = static_cast<T>(u);
    } else if (v.is_number_integer()) {
      const int64_t s = v.get<int64_t>();
      if (s < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
          (s > 0 && static_cast<uint64_t>(s) >
                        static_cast<uint64_t>(std::numeric_limits<T>::max()))) {
        return errors::InvalidArgument(Show(v), " does not fit in ",
                                       DataTypeString(dtype));
      }
      flat(i) = static_cast<T>(s);
    } else if (v.is_number_float()) {
      const double d = v.get<double>();
      if (std::trunc(d) != d) {
        return errors::InvalidArgument(Show(v), " is not an integer (dtype ",
                                       DataTypeString(dtype), ")");
      }
      if (d < static_cast<double>(std::numeric_limits<T>::min()) ||
          d > static_cast<double>(std::numeric_limits<T>::max())) {
        return errors::InvalidArgument(Show(v), " does not fit in ",
                                       DataTypeString(dtype));
      }
      flat(i) = static_cast<T>(d);
    } else {
      return errors::InvalidArgument(Show(v), " is not an integer (dtype ",
                                     DataTypeString(dtype), ")");
    }
  }
  return absl::OkStatus();
}

absl::Status FillBool(const std::vector<const json*>& leaves, Tensor* t) {
  auto flat = t->flat<bool>();
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (!leaves[i]->is_boolean()) {
      return errors::InvalidArgument(Show(*leaves[i]),
                                     " is not a boolean (true or false)");
    }
    flat(i) = leaves[i]->get<bool>();
  }
  return absl::OkStatus();
}

absl::Status FillString(const std::vector<const json*>& leaves, Tensor* t) {
  auto flat = t->flat<std::string>();
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (!leaves[i]->is_string()) {
      return errors::InvalidArgument(Show(*leaves[i]), " is not a string");
    }
    flat(i) = leaves[i]->get<std::string>();
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<DataType> ParseDtypeName(absl::string_view name) {
  static const auto* kNames = new absl::flat_hash_map<std::string, DataType>{
      {"float32", tensorflow::DT_FLOAT},     {"float", tensorflow::DT_FLOAT},
      {"float64", tensorflow::DT_DOUBLE},    {"double", tensorflow::DT_DOUBLE},
      {"float16", tensorflow::DT_HALF},      {"half", tensorflow::DT_HALF},
      {"bfloat16", tensorflow::DT_BFLOAT16}, {"int8", tensorflow::DT_INT8},
      {"int16", tensorflow::DT_INT16},       {"int32", tensorflow::DT_INT32},
      {"int64", tensorflow::DT_INT64},       {"uint8", tensorflow::DT_UINT8},
      {"uint16", tensorflow::DT_UINT16},     {"uint32", tensorflow::DT_UINT32},
      {"uint64", tensorflow::DT_UINT64},     {"bool", tensorflow::DT_BOOL},
      {"string", tensorflow::DT_STRING},
  };
  auto it = kNames->find(std::string(name));
  if (it != kNames->end()) return it->second;
  DataType dtype;
  if (tensorflow::DataType_Parse(std::string(name), &dtype) &&
      dtype != tensorflow::DT_INVALID && !IsRefType(dtype)) {
    return dtype;
  }
  return errors::InvalidArgument("Unknown dtype '", name,
                                 "' (expected e.g. float32, int64, bool)");
}

absl::StatusOr<FeedFlag> ParseFeedFlag(absl::string_view flag) {
  const size_t eq = flag.find('=');
  if (eq == absl::string_view::npos || eq == 0) {
    return errors::InvalidArgument("--feed '", flag,
                                   "' is not NAME=VALUE (e.g. x=[1,2])");
  }
  FeedFlag out;
  out.name = std::string(flag.substr(0, eq));
  absl::string_view value = flag.substr(eq + 1);
  // A dtype prefix is an identifier followed by ':'; JSON values never
  // start that way (strings start with '"', numbers with a digit or '-').
  const size_t colon = value.find(':');
  if (colon != absl::string_view::npos && colon > 0 &&
      (absl::ascii_isalpha(value[0]))) {
    absl::string_view prefix = value.substr(0, colon);
    bool identifier = true;
    for (char c : prefix) {
      identifier = identifier && (absl::ascii_isalnum(c) || c == '_');
    }
    if (identifier && prefix != "true" && prefix != "false") {
      auto dtype = ParseDtypeName(prefix);
      if (!dtype.ok()) {
        return errors::InvalidArgument("--feed ", out.name, ": ",
                                       dtype.status().message());
      }
      out.dtype = *dtype;
      value = value.substr(colon + 1);
    }
  }
  if (!value.empty() && value[0] == '@') {
    out.file = std::string(value.substr(1));
    if (out.file.empty()) {
      return errors::InvalidArgument("--feed ", out.name,
                                     ": '@' needs a file path (x=@batch.npy)");
    }
    return out;
  }
  out.value = json::parse(value.begin(), value.end(), nullptr,
                          /*allow_exceptions=*/false);
  if (out.value.is_discarded()) {
    return errors::InvalidArgument("--feed ", out.name, ": '", value,
                                   "' is not a JSON scalar or array");
  }
  return out;
}

absl::StatusOr<Tensor> JsonToTensor(const json& value,
                                    std::optional<DataType> dtype) {
  if (value.is_object() || value.is_null()) {
    return errors::InvalidArgument(
        "a value must be a JSON scalar or (nested) array, not ", value.dump());
  }
  std::vector<int64_t> dims;
  std::vector<const json*> leaves;
  TRIB_RETURN_IF_ERROR(Flatten(value, 0, &dims, &leaves));
  TRIB_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
  const DataType type = dtype.has_value() ? *dtype : InferDtype(leaves);
  Tensor t(type, shape);
  absl::Status s;
  switch (type) {
    case tensorflow::DT_FLOAT:
      s = FillFloating<float>(leaves, &t);
      break;
    case tensorflow::DT_DOUBLE:
      s = FillFloating<double>(leaves, &t);
      break;
    case tensorflow::DT_HALF:
      s = FillFloating<half>(leaves, &t);
      break;
    case tensorflow::DT_BFLOAT16:
      s = FillFloating<bfloat16>(leaves, &t);
      break;
    case tensorflow::DT_INT8:
      s = FillInteger<int8_t>(leaves, &t);
      break;
    case tensorflow::DT_INT16:
      s = FillInteger<int16_t>(leaves, &t);
      break;
    case tensorflow::DT_INT32:
      s = FillInteger<int32_t>(leaves, &t);
      break;
    case tensorflow::DT_INT64:
      s = FillInteger<int64_t>(leaves, &t);
      break;
    case tensorflow::DT_UINT8:
      s = FillInteger<uint8_t>(leaves, &t);
      break;
    case tensorflow::DT_UINT16:
      s = FillInteger<uint16_t>(leaves, &t);
      break;
    case tensorflow::DT_UINT32:
      s = FillInteger<uint32_t>(leaves, &t);
      break;
    case tensorflow::DT_UINT64:
      s = FillInteger<uint64_t>(leaves, &t);
      break;
    case tensorflow::DT_BOOL:
      s = FillBool(leaves, &t);
      break;
    case tensorflow::DT_STRING:
      s = FillString(leaves, &t);
      break;
    default:
      return errors::InvalidArgument("Cannot feed ", DataTypeString(type),
                                     " values from the command line");
  }
  TRIB_RETURN_IF_ERROR(s);
  return t;
}

}  // namespace tributary
