// Neural-network ops: bias, activations, softmax losses, convolution,
// pooling and batch normalization.
//
// Image ops default to NHWC (TensorFlow's CPU layout); NCHW is accepted so that
// graphs tuned for GPUs validate, even where a kernel supports only NHWC.

#include "common/op/op_registry.h"

// One builder call per line reads like the op signature it defines;
// clang-format would fold short chains onto one line.
// clang-format off

namespace tributary {
namespace {

constexpr char kDataFormat[] = "data_format: {'NHWC', 'NCHW'} = 'NHWC'";

// Softmax family: floating types only.
constexpr char kSoftmaxT[] = "T: {half, bfloat16, float, double}";

}  // namespace

// --- Bias --------------------------------------------------------------------

// Adds a 1-D bias along the channel dimension chosen by data_format.
REGISTER_OP("BiasAdd")
    .Input("value: T")
    .Input("bias: T")
    .Output("output: T")
    .Attr("T: numbertype")
    .Attr(kDataFormat);

// Sums out_backprop over every dimension but the channel one.
REGISTER_OP("BiasAddGrad")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: numbertype")
    .Attr(kDataFormat);

// --- Activations -------------------------------------------------------------

REGISTER_OP("Relu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {realnumbertype, qint8}");

// backprops = gradients where features > 0, else 0.
REGISTER_OP("ReluGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("T: realnumbertype");

// min(max(features, 0), 6).
REGISTER_OP("Relu6")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: realnumbertype");

// backprops = gradients where 0 < features < 6, else 0.
REGISTER_OP("Relu6Grad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("T: realnumbertype");

// --- Smooth and leaky activations (Keras activation='elu'|'selu'|'softplus'|
// 'softsign', LeakyReLU and ELU layers) ----------------------------------------

// features where > 0, else exp(features) - 1.
REGISTER_OP("Elu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {half, bfloat16, float, double}");

// Written in terms of the forward output: gradients * (outputs + 1) where
// outputs < 0, else gradients.
REGISTER_OP("EluGrad")
    .Input("gradients: T")
    .Input("outputs: T")
    .Output("backprops: T")
    .Attr("T: {half, bfloat16, float, double}");

// scale * Elu(features) with alpha, Klambauer et al.'s self-normalising
// constants.
REGISTER_OP("Selu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {half, bfloat16, float, double}");

REGISTER_OP("SeluGrad")
    .Input("gradients: T")
    .Input("outputs: T")
    .Output("backprops: T")
    .Attr("T: {half, bfloat16, float, double}");

// features where > 0, else alpha * features. The remapper fuses it into
// _FusedConv2D/_FusedMatMul as leakyrelu_alpha = alpha.
REGISTER_OP("LeakyRelu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("alpha: float = 0.2")
    .Attr("T: {half, bfloat16, float, double} = DT_FLOAT");

REGISTER_OP("LeakyReluGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("alpha: float = 0.2")
    .Attr("T: {half, bfloat16, float, double} = DT_FLOAT");

// log(exp(features) + 1).
REGISTER_OP("Softplus")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {half, bfloat16, float, double}");

REGISTER_OP("SoftplusGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("T: {half, bfloat16, float, double}");

// features / (abs(features) + 1).
REGISTER_OP("Softsign")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {half, bfloat16, float, double}");

REGISTER_OP("SoftsignGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("T: {half, bfloat16, float, double}");

// --- Softmax and losses ------------------------------------------------------

// Both normalise over the last dimension.
REGISTER_OP("Softmax")
    .Input("logits: T")
    .Output("softmax: T")
    .Attr(kSoftmaxT);

REGISTER_OP("LogSoftmax")
    .Input("logits: T")
    .Output("logsoftmax: T")
    .Attr(kSoftmaxT);

// Returns the per-example loss and its gradient w.r.t. the logits in one pass,
// which is why the gradient of this op is almost free.
REGISTER_OP("SoftmaxCrossEntropyWithLogits")
    .Input("features: T")
    .Input("labels: T")
    .Output("loss: T")
    .Output("backprop: T")
    .Attr(kSoftmaxT);

// Same with class indices as labels.
REGISTER_OP("SparseSoftmaxCrossEntropyWithLogits")
    .Input("features: T")
    .Input("labels: Tlabels")
    .Output("loss: T")
    .Output("backprop: T")
    .Attr(kSoftmaxT)
    .Attr("Tlabels: {int32, int64} = DT_INT64");

// sum(t ** 2) / 2, a scalar (tf.nn.l2_loss, tf.clip_by_global_norm).
REGISTER_OP("L2Loss")
    .Input("t: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}");

// --- Convolution and pooling -------------------------------------------------

// strides and dilations are given per dimension of `input` in data_format
// order; explicit_paddings (2 per dimension) is used only with EXPLICIT.
REGISTER_OP("Conv2D")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double, int32}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr(kDataFormat)
    .Attr("dilations: list(int) = [1, 1, 1, 1]");

// Gradients of Conv2D with respect to its input and its filter. The shape of
// the tensor being differentiated comes in as an int32 vector; only the input
// gradient has an int32 kernel (as in TensorFlow).
REGISTER_OP("Conv2DBackpropInput")
    .Input("input_sizes: int32")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double, int32}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr(kDataFormat)
    .Attr("dilations: list(int) = [1, 1, 1, 1]");

REGISTER_OP("Conv2DBackpropFilter")
    .Input("input: T")
    .Input("filter_sizes: int32")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int)")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr(kDataFormat)
    .Attr("dilations: list(int) = [1, 1, 1, 1]");

// Depthwise convolution (MobileNet, EfficientNet): each input channel gets
// its own filter [H, W, in_channels, channel_multiplier]; no use_cudnn_on_gpu.
REGISTER_OP("DepthwiseConv2dNative")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr(kDataFormat)
    .Attr("dilations: list(int) = [1, 1, 1, 1]");

// --- Fused convolution and matmul (grappler's remapper, CPU) -----------------
//
// out = activation(op(input, filter) + bias [+ addend]) in one kernel; the
// fused_ops list says which epilogue and `args` carries its operands (bias;
// bias, addend; or scale, offset, mean, variance for FusedBatchNorm).
// Internal ops (leading underscore): graphs get them from the remapper,
// never from a client. Output shape is the unfused op's.

REGISTER_OP("_FusedConv2D")
    .Input("input: T")
    .Input("filter: T")
    .Input("args: TArgs")
    .Input("host_args: num_host_args * float")
    .Output("output: T")
    .Attr("T: {half, float, double, int8, qint8}")
    .Attr("TArgs: list(type)")
    .Attr("num_args: int >= 0")
    .Attr("num_host_args: int >= 0 = 0")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .Attr("filter_format: {'HWIO', 'OIHW', 'OIHW_VECT_I'} = 'HWIO'")
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .Attr("use_cudnn_on_gpu: bool = true")
    .Attr("fused_ops: list(string) = []")
    .Attr("epsilon: float = 0.0001")
    .Attr("leakyrelu_alpha: float = 0.2");

REGISTER_OP("_FusedDepthwiseConv2dNative")
    .Input("input: T")
    .Input("filter: T")
    .Input("args: num_args * T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("num_args: int >= 0")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr(kDataFormat)
    .Attr("dilations: list(int) = [1, 1, 1, 1]")
    .Attr("fused_ops: list(string) = []")
    .Attr("epsilon: float = 0.0001")
    .Attr("leakyrelu_alpha: float = 0.2");

REGISTER_OP("_FusedMatMul")
    .Input("a: T")
    .Input("b: T")
    .Input("args: num_args * T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("T: {bfloat16, half, float}")
    .Attr("num_args: int >= 0")
    .Attr("fused_ops: list(string) = []")
    .Attr("epsilon: float = 0.0001")
    .Attr("leakyrelu_alpha: float = 0.2");

// Gradient of DepthwiseConv2dNative with respect to its input, whose shape
// comes in as an int32 vector.
REGISTER_OP("DepthwiseConv2dNativeBackpropInput")
    .Input("input_sizes: int32")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr(kDataFormat)
    .Attr("dilations: list(int) = [1, 1, 1, 1]");

// Gradient of DepthwiseConv2dNative with respect to its filter, whose shape
// comes in as an int32 vector.
REGISTER_OP("DepthwiseConv2dNativeBackpropFilter")
    .Input("input: T")
    .Input("filter_sizes: int32")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int)")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr(kDataFormat)
    .Attr("dilations: list(int) = [1, 1, 1, 1]");

// MaxPool is the one pooling op with a default T, explicit padding and the
// int8-vectorised NCHW_VECT_C layout.
REGISTER_OP("MaxPool")
    .Input("input: T")
    .Output("output: T")
    .Attr(
        "T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, "
        "uint16, qint8} = DT_FLOAT")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'");

// Note the argument is `value` (not `input`) and T is declared last.
REGISTER_OP("AvgPool")
    .Input("value: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr(kDataFormat)
    .Attr("T: {half, bfloat16, float, double}");

// Pooling gradients. MaxPoolGrad re-derives the argmax from the forward
// input and output; AvgPoolGrad needs only the forward input's shape.
REGISTER_OP("MaxPoolGrad")
    .Input("orig_input: T")
    .Input("orig_output: T")
    .Input("grad: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
    .Attr("explicit_paddings: list(int) = []")
    .Attr(kDataFormat)
    .Attr(
        "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, "
        "uint16, half, uint32, uint64} = DT_FLOAT");

REGISTER_OP("AvgPoolGrad")
    .Input("orig_input_shape: int32")
    .Input("grad: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr(kDataFormat)
    .Attr("T: {half, bfloat16, float, double}");

// --- Batch normalization -----------------------------------------------------

// TensorFlow's convnet layouts, 2-D and 3-D: the channel is last (NHWC, NDHWC)
// or second (NCHW, NCDHW).
constexpr char kDataFormat2D3D[] =
    "data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'";

// y = (x - mean) * scale / sqrt(variance + epsilon) + offset per channel.
// Training normalizes by the batch statistics and returns the running
// estimates (Bessel-corrected variance, blended by exponential_avg_factor);
// reserve_space_1/2 carry the batch mean and biased variance to the gradient.
REGISTER_OP("FusedBatchNormV3")
    .Input("x: T")
    .Input("scale: U")
    .Input("offset: U")
    .Input("mean: U")
    .Input("variance: U")
    .Output("y: T")
    .Output("batch_mean: U")
    .Output("batch_variance: U")
    .Output("reserve_space_1: U")
    .Output("reserve_space_2: U")
    .Output("reserve_space_3: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {bfloat16, float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr(kDataFormat2D3D)
    .Attr("is_training: bool = true");

// FusedBatchNormV3, then + side_input (same shape as x), then the
// activation ("Identity" or "Relu"), in one kernel: the remapper's fusion of
// FusedBatchNorm{,V2,V3} [+ Add/AddV2] + Relu. The statistics outputs are
// FusedBatchNormV3's. Internal op (leading underscore).
REGISTER_OP("_FusedBatchNormEx")
    .Input("x: T")
    .Input("scale: U")
    .Input("offset: U")
    .Input("mean: U")
    .Input("variance: U")
    .Input("side_input: num_side_inputs * T")
    .Output("y: T")
    .Output("batch_mean: U")
    .Output("batch_variance: U")
    .Output("reserve_space_1: U")
    .Output("reserve_space_2: U")
    .Output("reserve_space_3: U")
    .Attr("T: {half, float, bfloat16}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr("num_side_inputs: int >= 0 = 0")
    .Attr("activation_mode: string = 'Identity'")
    .Attr(kDataFormat)
    .Attr("is_training: bool = true");

// Gradients of FusedBatchNormV3 for x, scale and offset; reserve_space_1/2
// are its saved mean and variance.
REGISTER_OP("FusedBatchNormGradV3")
    .Input("y_backprop: T")
    .Input("x: T")
    .Input("scale: float")
    .Input("reserve_space_1: U")
    .Input("reserve_space_2: U")
    .Input("reserve_space_3: U")
    .Output("x_backprop: T")
    .Output("scale_backprop: U")
    .Output("offset_backprop: U")
    .Output("reserve_space_4: U")
    .Output("reserve_space_5: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr(kDataFormat2D3D)
    .Attr("is_training: bool = true");

// The older versions, one kernel with V3: no reserve_space_3, 2-D layouts only;
// FusedBatchNorm is float everywhere, V2 splits T and U as V3 does.
REGISTER_OP("FusedBatchNorm")
    .Input("x: T")
    .Input("scale: T")
    .Input("offset: T")
    .Input("mean: T")
    .Input("variance: T")
    .Output("y: T")
    .Output("batch_mean: T")
    .Output("batch_variance: T")
    .Output("reserve_space_1: T")
    .Output("reserve_space_2: T")
    .Attr("T: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr(kDataFormat)
    .Attr("is_training: bool = true");

REGISTER_OP("FusedBatchNormV2")
    .Input("x: T")
    .Input("scale: U")
    .Input("offset: U")
    .Input("mean: U")
    .Input("variance: U")
    .Output("y: T")
    .Output("batch_mean: U")
    .Output("batch_variance: U")
    .Output("reserve_space_1: U")
    .Output("reserve_space_2: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr(kDataFormat)
    .Attr("is_training: bool = true");

REGISTER_OP("FusedBatchNormGrad")
    .Input("y_backprop: T")
    .Input("x: T")
    .Input("scale: T")
    .Input("reserve_space_1: T")
    .Input("reserve_space_2: T")
    .Output("x_backprop: T")
    .Output("scale_backprop: T")
    .Output("offset_backprop: T")
    .Output("reserve_space_3: T")
    .Output("reserve_space_4: T")
    .Attr("T: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr(kDataFormat)
    .Attr("is_training: bool = true");

REGISTER_OP("FusedBatchNormGradV2")
    .Input("y_backprop: T")
    .Input("x: T")
    .Input("scale: float")
    .Input("reserve_space_1: U")
    .Input("reserve_space_2: U")
    .Output("x_backprop: T")
    .Output("scale_backprop: U")
    .Output("offset_backprop: U")
    .Output("reserve_space_3: U")
    .Output("reserve_space_4: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr(kDataFormat)
    .Attr("is_training: bool = true");

// --- Image resizing ----------------------------------------------------------

// Resize NHWC images to `size` = [new_height, new_width]. Bilinear always
// produces float; the listed types (bfloat16 twice) are TensorFlow's.
REGISTER_OP("ResizeBilinear")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: float")
    .Attr(
        "T: {int8, uint8, int16, uint16, int32, int64, bfloat16, half, "
        "float, double, bfloat16}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false");

REGISTER_OP("ResizeNearestNeighbor")
    .Input("images: T")
    .Input("size: int32")
    .Output("resized_images: T")
    .Attr(
        "T: {int8, uint8, int16, uint16, int32, int64, half, float, double, "
        "bfloat16}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false");

// Its gradient: back to the original image's size.
REGISTER_OP("ResizeBilinearGrad")
    .Input("grads: float")
    .Input("original_image: T")
    .Output("output: T")
    .Attr("T: {float, bfloat16, half, double}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false");


// ResizeNearestNeighbor's gradient: each output pixel's gradient summed into
// the input pixel it was copied from; `size` is the original image's [h, w].
REGISTER_OP("ResizeNearestNeighborGrad")
    .Input("grads: T")
    .Input("size: int32")
    .Output("output: T")
    .Attr("T: {uint8, int8, int32, half, float, double, bfloat16}")
    .Attr("align_corners: bool = false")
    .Attr("half_pixel_centers: bool = false");

}  // namespace tributary

// clang-format on
