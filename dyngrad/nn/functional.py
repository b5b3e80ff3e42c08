"""dyngrad.nn.functional: the ops published as ``nn.functional.<name>`` (declared in dyngrad/ops)."""
from ..ops import namespace as _namespace
from ..ops._arg_parser import published as _published
from ..ops._registry import picklable_by_name as _picklable_by_name

# the functions that are torch's bindings themselves (torch.nn.functional.bilinear is
# torch.bilinear), or call the binding with their own arguments (rms_norm): a wrong argument
# gets the binding's TypeError (Note [Parser errors] in ops/_arg_parser.py)
_BINDINGS = frozenset({"adaptive_avg_pool1d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
                       "bilinear", "celu_", "channel_shuffle", "conv1d", "conv2d", "conv3d",
                       "conv_tbc", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
                       "cosine_similarity", "hardshrink", "layer_norm", "native_channel_shuffle",
                       "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle", "prelu",
                       "relu_", "rms_norm", "rrelu_", "scaled_dot_product_attention", "selu_",
                       "threshold_"})
_functions = _published(_namespace("nn.functional"),
                        binding=lambda name: name if name in _BINDINGS else None)
globals().update(_functions)
_picklable_by_name(__name__, _functions)
del _functions
