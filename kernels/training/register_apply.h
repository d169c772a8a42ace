#ifndef TRIBUTARY_KERNELS_TRAINING_REGISTER_APPLY_H_
#define TRIBUTARY_KERNELS_TRAINING_REGISTER_APPLY_H_

// Registration shared by the optimizer kernels: every op comes as an
// Apply<Name> (ref inputs) and ResourceApply<Name> (resource inputs) pair
// served by one kernel class (training_op_helpers.h hides the difference),
// so each .cc names the pair once instead of spelling out both builders.

#include "common/kernel/kernel_registry.h"

// Registers the kernel class (the variadic tail, so template arguments may
// contain commas) for Apply<NAME> and ResourceApply<NAME> with "T" = T.
#define TRIB_REGISTER_APPLY_PAIR(NAME, T, ...)                              \
  REGISTER_KERNEL_BUILDER(                                                  \
      Name("Apply" NAME).Device(DEVICE_CPU).TypeConstraint<T>("T"),         \
      __VA_ARGS__);                                                         \
  REGISTER_KERNEL_BUILDER(                                                  \
      Name("ResourceApply" NAME).Device(DEVICE_CPU).TypeConstraint<T>("T"), \
      __VA_ARGS__)

// Calls M(T) for the types TensorFlow registers most CPU optimizer kernels
// for: half and bfloat16 as well as float and double.
#define TRIB_FOR_APPLY_TYPES(M) \
  M(half);                      \
  M(bfloat16);                  \
  M(float);                     \
  M(double)

#endif  // TRIBUTARY_KERNELS_TRAINING_REGISTER_APPLY_H_
