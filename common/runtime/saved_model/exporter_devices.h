#ifndef TRIBUTARY_COMMON_RUNTIME_SAVED_MODEL_EXPORTER_DEVICES_H_
#define TRIBUTARY_COMMON_RUNTIME_SAVED_MODEL_EXPORTER_DEVICES_H_

// A SavedModel written by TensorFlow 2 names the process that exported it in
// its devices: functions traced eagerly ask for
// "/job:localhost/replica:0/task:0/device:CPU:0" (the saver's functions
// always do). "localhost" there means "the process running the model", not a
// job of the cluster it is loaded into, where no such job exists and
// placement would fail. So every device naming job "localhost" keeps only
// its device part ("/device:CPU:0"), in the graph's nodes and in every
// function body; the placer then picks the task (the one the resources live
// on, for ops reading variables). Other devices are left as they are.

#include "protos/graph.pb.h"

namespace tributary {

void DropExportingProcessFromDevices(tensorflow::GraphDef* graph);

}  // namespace tributary

#endif  // TRIBUTARY_COMMON_RUNTIME_SAVED_MODEL_EXPORTER_DEVICES_H_
