"""TensorFlow's own protobuf schemas, as the installed TensorFlow really has them.

The framework and config messages come from the pip package's *_pb2 modules. The
master and worker services' messages are not shipped as Python modules, but their
compiled descriptors are embedded in libtensorflow_cc.so; we read them out of the
binary, so the comparison is against what TensorFlow actually puts on the wire.
"""
import glob
import importlib
import os
import pkgutil
import re

from google.protobuf import descriptor_pb2
from google.protobuf import descriptor_pool
from google.protobuf import message_factory
from google.protobuf.internal import decoder

# Files whose descriptors we take from the shared library.
EMBEDDED_FILES = (
    "tensorflow/core/protobuf/master.proto",
    "tensorflow/core/protobuf/worker.proto",
)

_loaded = False


def _import_pb2_modules():
    import tensorflow  # noqa: F401  (registers the framework descriptors)
    # TSL's messages (e.g. GrpcPayloadContainer) moved between releases;
    # TensorFlow 2.21 ships them under tensorflow.compiler.xla.tsl.protobuf.
    for package_name in ("tensorflow.core.framework", "tensorflow.core.protobuf",
                         "tsl.protobuf", "tensorflow.tsl.protobuf",
                         "tensorflow.compiler.xla.tsl.protobuf"):
        try:
            package = importlib.import_module(package_name)
        except ImportError:
            continue
        for info in pkgutil.iter_modules(package.__path__):
            if info.name.endswith("_pb2"):
                try:
                    importlib.import_module(f"{package_name}.{info.name}")
                except Exception:  # a module with an optional dependency; not ours
                    pass


def _descriptor_length(data, offset):
    """Length of the serialized FileDescriptorProto that starts at `offset`.

    It is not length-prefixed in the binary, so walk its fields and stop at the
    first tag that cannot belong to a FileDescriptorProto.
    """
    wire_types = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 7: 2, 8: 2, 9: 2, 10: 0, 11: 0,
                  12: 2, 13: 2, 14: 0}
    pos = offset
    while pos < len(data):
        try:
            tag, next_pos = decoder._DecodeVarint(data, pos)
        except Exception:
            break
        number, wire_type = tag >> 3, tag & 7
        if wire_types.get(number) != wire_type:
            break
        value, next_pos = decoder._DecodeVarint(data, next_pos)
        pos = next_pos + value if wire_type == 2 else next_pos
    return pos - offset


def _embedded_file(data, name):
    encoded = name.encode()
    needle = b"\n" + bytes([len(encoded)]) + encoded
    for match in re.finditer(re.escape(needle), data):
        length = _descriptor_length(data, match.start())
        proto = descriptor_pb2.FileDescriptorProto()
        try:
            proto.ParseFromString(data[match.start():match.start() + length])
        except Exception:
            continue
        if proto.message_type:
            return proto
    raise LookupError(f"{name} not found in TensorFlow's shared library")


def load():
    """Makes every TensorFlow message we compare against available in the default pool."""
    global _loaded
    if _loaded:
        return descriptor_pool.Default()
    _import_pb2_modules()
    import tensorflow
    libs = glob.glob(os.path.join(os.path.dirname(tensorflow.__file__), "libtensorflow_cc.so*"))
    with open(sorted(libs)[0], "rb") as f:
        data = f.read()
    pool = descriptor_pool.Default()
    for name in EMBEDDED_FILES:
        try:
            pool.FindFileByName(name)
        except KeyError:
            pool.AddSerializedFile(_embedded_file(data, name).SerializeToString())
    _loaded = True
    return pool


def message_class(full_name):
    """TensorFlow's class for a message, e.g. 'tensorflow.RunStepRequest'."""
    pool = load()
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(full_name))


def our_pool(descriptor_set_path):
    """A pool holding Tributary's own schema (protos/*.proto), from a descriptor set."""
    file_set = descriptor_pb2.FileDescriptorSet()
    with open(descriptor_set_path, "rb") as f:
        file_set.ParseFromString(f.read())
    pool = descriptor_pool.DescriptorPool()
    for file_proto in file_set.file:
        pool.Add(file_proto)
    return pool, file_set
