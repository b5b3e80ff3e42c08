"""More of torch's parser signatures (see _signatures.py for the format): the functions and
methods whose entries were made from torchgen's data (the native_functions.yaml that the torch
wheel ships, read by tests/torchgen_signatures.py, which also checks them)."""

SIGNATURES = {
    "abs_": ("abs_(Tensor input)",),
    "absolute": ("absolute(Tensor input, *, Tensor out=None)",),
    "absolute_": ("absolute_()|method",),
    "acos": ("acos(Tensor input, *, Tensor out=None)",),
    "acos_": ("acos_(Tensor input)",),
    "acosh": ("acosh(Tensor input, *, Tensor out=None)",),
    "acosh_": ("acosh_(Tensor input)",),
    "adaptive_max_pool1d": ("adaptive_max_pool1d(Tensor input, int[1] output_size)",),
    "add_": ("add_(Scalar alpha, Tensor other)|method,hidden",
             "add_(Tensor other, *, Scalar alpha=1)|method"),
    "addbmm": ("addbmm(Scalar beta, Tensor input, Scalar alpha, Tensor batch1, Tensor batch2, "
               "*, Tensor out=None)|fn,hidden",
               "addbmm(Scalar beta, Tensor input, Tensor batch1, Tensor batch2, *, "
               "Tensor out=None)|fn,hidden",
               "addbmm(Tensor input, Tensor batch1, Tensor batch2, *, Scalar beta=1, "
               "Scalar alpha=1, Tensor out=None)",
               "addbmm(Scalar beta, Scalar alpha, Tensor batch1, Tensor batch2)|method,hidden",
               "addbmm(Scalar beta, Tensor batch1, Tensor batch2)|method,hidden"),
    "addbmm_": ("addbmm_(Scalar beta, Scalar alpha, Tensor batch1, Tensor batch2)|method,hidden",
                "addbmm_(Scalar beta, Tensor batch1, Tensor batch2)|method,hidden",
                "addbmm_(Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1)|method"),
    "addcdiv": ("addcdiv(Tensor input, Scalar value, Tensor tensor1, Tensor tensor2, *, "
                "Tensor out=None)|hidden",
                "addcdiv(Tensor input, Tensor tensor1, Tensor tensor2, *, Scalar value=1, "
                "Tensor out=None)"),
    "addcdiv_": ("addcdiv_(Scalar value, Tensor tensor1, Tensor tensor2)|method,hidden",
                 "addcdiv_(Tensor tensor1, Tensor tensor2, *, Scalar value=1)|method"),
    "addcmul": ("addcmul(Tensor input, Scalar value, Tensor tensor1, Tensor tensor2, *, "
                "Tensor out=None)|hidden",
                "addcmul(Tensor input, Tensor tensor1, Tensor tensor2, *, Scalar value=1, "
                "Tensor out=None)"),
    "addcmul_": ("addcmul_(Scalar value, Tensor tensor1, Tensor tensor2)|method,hidden",
                 "addcmul_(Tensor tensor1, Tensor tensor2, *, Scalar value=1)|method"),
    "addmm": ("addmm(Scalar beta, Tensor input, Scalar alpha, Tensor mat1, Tensor mat2, *, "
              "Tensor out=None)|fn,hidden",
              "addmm(Scalar beta, Tensor input, Tensor mat1, Tensor mat2, *, "
              "Tensor out=None)|fn,hidden",
              "addmm(Tensor input, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, "
              "Tensor out=None)",
              "addmm(Tensor input, Tensor mat1, Tensor mat2, dtype out_dtype, *, "
              "Scalar beta=1, Scalar alpha=1, Tensor out=None)|fn",
              "addmm(Scalar beta, Scalar alpha, Tensor mat1, Tensor mat2)|method,hidden",
              "addmm(Scalar beta, Tensor mat1, Tensor mat2)|method,hidden"),
    "addmm_": ("addmm_(Scalar beta, Scalar alpha, Tensor mat1, Tensor mat2)|method,hidden",
               "addmm_(Scalar beta, Tensor mat1, Tensor mat2)|method,hidden",
               "addmm_(Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1)|method"),
    "addmv": ("addmv(Scalar beta, Tensor input, Scalar alpha, Tensor mat, Tensor vec, *, "
              "Tensor out=None)|fn,hidden",
              "addmv(Scalar beta, Tensor input, Tensor mat, Tensor vec, *, "
              "Tensor out=None)|fn,hidden",
              "addmv(Tensor input, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1, "
              "Tensor out=None)",
              "addmv(Scalar beta, Scalar alpha, Tensor mat, Tensor vec)|method,hidden",
              "addmv(Scalar beta, Tensor mat, Tensor vec)|method,hidden"),
    "addmv_": ("addmv_(Scalar beta, Tensor input, Scalar alpha, Tensor mat, "
               "Tensor vec)|fn,hidden",
               "addmv_(Scalar beta, Tensor input, Tensor mat, Tensor vec)|fn,hidden",
               "addmv_(Tensor input, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1)",
               "addmv_(Scalar beta, Scalar alpha, Tensor mat, Tensor vec)|method,hidden",
               "addmv_(Scalar beta, Tensor mat, Tensor vec)|method,hidden"),
    "addr": ("addr(Scalar beta, Tensor input, Scalar alpha, Tensor vec1, Tensor vec2, *, "
             "Tensor out=None)|fn,hidden",
             "addr(Scalar beta, Tensor input, Tensor vec1, Tensor vec2, *, "
             "Tensor out=None)|fn,hidden",
             "addr(Tensor input, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1, "
             "Tensor out=None)",
             "addr(Scalar beta, Scalar alpha, Tensor vec1, Tensor vec2)|method,hidden",
             "addr(Scalar beta, Tensor vec1, Tensor vec2)|method,hidden"),
    "addr_": ("addr_(Scalar beta, Scalar alpha, Tensor vec1, Tensor vec2)|method,hidden",
              "addr_(Scalar beta, Tensor vec1, Tensor vec2)|method,hidden",
              "addr_(Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1)|method"),
    "adjoint": ("adjoint(Tensor input)",),
    "affine_grid_generator": ("affine_grid_generator(Tensor theta, SymInt[] size, "
                              "bool align_corners)",),
    "alias_copy": ("alias_copy(Tensor input, *, Tensor out=None)",),
    "alpha_dropout": ("alpha_dropout(Tensor input, float p, bool train)",),
    "alpha_dropout_": ("alpha_dropout_(Tensor input, float p, bool train)",),
    "angle": ("angle(Tensor input, *, Tensor out=None)",),
    "arccos": ("arccos(Tensor input, *, Tensor out=None)",),
    "arccos_": ("arccos_(Tensor input)",),
    "arccosh": ("arccosh(Tensor input, *, Tensor out=None)",),
    "arccosh_": ("arccosh_(Tensor input)",),
    "arcsin": ("arcsin(Tensor input, *, Tensor out=None)",),
    "arcsin_": ("arcsin_(Tensor input)",),
    "arcsinh": ("arcsinh(Tensor input, *, Tensor out=None)",),
    "arcsinh_": ("arcsinh_(Tensor input)",),
    "arctan": ("arctan(Tensor input, *, Tensor out=None)",),
    "arctan2": ("arctan2(Tensor input, Tensor other, *, Tensor out=None)",),
    "arctan2_": ("arctan2_(Tensor other)|method",),
    "arctan_": ("arctan_(Tensor input)",),
    "arctanh": ("arctanh(Tensor input, *, Tensor out=None)",),
    "arctanh_": ("arctanh_(Tensor input)",),
    "as_strided_": ("as_strided_(Tensor input, SymInt[] size, SymInt[] stride, "
                    "SymInt? storage_offset=None)",),
    "asin": ("asin(Tensor input, *, Tensor out=None)",),
    "asin_": ("asin_(Tensor input)",),
    "asinh": ("asinh(Tensor input, *, Tensor out=None)",),
    "asinh_": ("asinh_(Tensor input)",),
    "atan": ("atan(Tensor input, *, Tensor out=None)",),
    "atan2_": ("atan2_(Tensor other)|method",),
    "atan_": ("atan_(Tensor input)",),
    "atanh": ("atanh(Tensor input, *, Tensor out=None)",),
    "atanh_": ("atanh_(Tensor input)",),
    "baddbmm": ("baddbmm(Scalar beta, Tensor input, Scalar alpha, Tensor batch1, "
                "Tensor batch2, *, Tensor out=None)|fn,hidden",
                "baddbmm(Scalar beta, Tensor input, Tensor batch1, Tensor batch2, *, "
                "Tensor out=None)|fn,hidden",
                "baddbmm(Tensor input, Tensor batch1, Tensor batch2, *, Scalar beta=1, "
                "Scalar alpha=1, Tensor out=None)",
                "baddbmm(Tensor input, Tensor batch1, Tensor batch2, dtype out_dtype, *, "
                "Scalar beta=1, Scalar alpha=1, Tensor out=None)|fn",
                "baddbmm(Scalar beta, Scalar alpha, Tensor batch1, Tensor batch2)|method,hidden",
                "baddbmm(Scalar beta, Tensor batch1, Tensor batch2)|method,hidden"),
    "baddbmm_": ("baddbmm_(Scalar beta, Scalar alpha, Tensor batch1, "
                 "Tensor batch2)|method,hidden",
                 "baddbmm_(Scalar beta, Tensor batch1, Tensor batch2)|method,hidden",
                 "baddbmm_(Tensor batch1, Tensor batch2, *, Scalar beta=1, "
                 "Scalar alpha=1)|method"),
    "bartlett_window": ("bartlett_window(int window_length, *, dtype? dtype=None, "
                        "Layout? layout=None, Device? device=None, bool? pin_memory=False, "
                        "bool? requires_grad=False)",
                        "bartlett_window(int window_length, bool periodic, *, "
                        "dtype? dtype=None, Layout? layout=None, Device? device=None, "
                        "bool? pin_memory=False, bool? requires_grad=False)"),
    "batch_norm": ("batch_norm(Tensor input, Tensor? weight, Tensor? bias, "
                   "Tensor? running_mean, Tensor? running_var, bool training, float momentum, "
                   "float eps, bool cudnn_enabled)",),
    "batch_norm_backward_elemt": ("batch_norm_backward_elemt(Tensor grad_out, Tensor input, "
                                  "Tensor mean, Tensor invstd, Tensor? weight, Tensor sum_dy, "
                                  "Tensor sum_dy_xmu, Tensor count)",),
    "batch_norm_backward_reduce": ("batch_norm_backward_reduce(Tensor grad_out, Tensor input, "
                                   "Tensor mean, Tensor invstd, Tensor? weight, bool input_g, "
                                   "bool weight_g, bool bias_g)",),
    "batch_norm_elemt": ("batch_norm_elemt(Tensor input, Tensor? weight, Tensor? bias, "
                         "Tensor mean, Tensor invstd, float eps, *, Tensor out=None)",),
    "batch_norm_gather_stats": ("batch_norm_gather_stats(Tensor input, Tensor mean, "
                                "Tensor invstd, Tensor? running_mean, Tensor? running_var, "
                                "float momentum, float eps, int count)",),
    "batch_norm_gather_stats_with_counts": ("batch_norm_gather_stats_with_counts(Tensor input, "
                                            "Tensor mean, Tensor invstd, Tensor? running_mean, "
                                            "Tensor? running_var, float momentum, float eps, "
                                            "Tensor counts)",),
    "batch_norm_stats": ("batch_norm_stats(Tensor input, float eps)",),
    "batch_norm_update_stats": ("batch_norm_update_stats(Tensor input, Tensor? running_mean, "
                                "Tensor? running_var, float momentum)",),
    "bernoulli": ("bernoulli(Tensor input, *, Generator? generator=None, Tensor out=None)",
                  "bernoulli(Tensor input, float p, *, Generator? generator=None)"),
    "bernoulli_": ("bernoulli_(Tensor p, *, Generator? generator=None)|method",
                   "bernoulli_(float p=0.5, *, Generator? generator=None)|method"),
    "binary_cross_entropy_with_logits": ("binary_cross_entropy_with_logits(Tensor input, "
                                         "Tensor target, Tensor? weight=None, "
                                         "Tensor? pos_weight=None, "
                                         "int reduction=at::Reduction::Mean)",),
    "bincount": ("bincount(Tensor input, Tensor? weights=None, SymInt minlength=0)",),
    "binomial": ("binomial(Tensor count, Tensor prob, Generator? generator=None)",),
    "bitwise_and_": ("bitwise_and_(Tensor other)|method",
                     "bitwise_and_(Scalar other)|method"),
    "bitwise_left_shift_": ("bitwise_left_shift_(Tensor other)|method",
                            "bitwise_left_shift_(Scalar other)|method"),
    "bitwise_not": ("bitwise_not(Tensor input, *, Tensor out=None)",),
    "bitwise_not_": ("bitwise_not_()|method",),
    "bitwise_or_": ("bitwise_or_(Tensor other)|method",
                    "bitwise_or_(Scalar other)|method"),
    "bitwise_right_shift_": ("bitwise_right_shift_(Tensor other)|method",
                             "bitwise_right_shift_(Scalar other)|method"),
    "bitwise_xor_": ("bitwise_xor_(Tensor other)|method",
                     "bitwise_xor_(Scalar other)|method"),
    "blackman_window": ("blackman_window(int window_length, *, dtype? dtype=None, "
                        "Layout? layout=None, Device? device=None, bool? pin_memory=False, "
                        "bool? requires_grad=False)",
                        "blackman_window(int window_length, bool periodic, *, "
                        "dtype? dtype=None, Layout? layout=None, Device? device=None, "
                        "bool? pin_memory=False, bool? requires_grad=False)"),
    "bucketize": ("bucketize(Tensor input, Tensor boundaries, *, bool out_int32=False, "
                  "bool right=False, Tensor out=None)",
                  "bucketize(Scalar self, Tensor boundaries, *, bool out_int32=False, "
                  "bool right=False)"),
    "can_cast": ("can_cast(dtype from_, dtype to)",),
    "cauchy_": ("cauchy_(float median=0, float sigma=1, *, Generator? generator=None)|method",),
    "ceil_": ("ceil_(Tensor input)",),
    "celu": ("celu(Tensor input, Scalar alpha=1.0)",),
    "celu_": ("celu_(Tensor input, Scalar alpha=1.0)",),
    "channel_shuffle": ("channel_shuffle(Tensor input, SymInt groups)",),
    "cholesky": ("cholesky(Tensor input, bool upper=False, *, Tensor out=None)",),
    "cholesky_inverse": ("cholesky_inverse(Tensor input, bool upper=False, *, Tensor out=None)",),
    "cholesky_solve": ("cholesky_solve(Tensor input, Tensor input2, bool upper=False, *, "
                       "Tensor out=None)",),
    "clamp_max": ("clamp_max(Tensor input, Tensor max, *, Tensor out=None)",
                  "clamp_max(Tensor input, Scalar max, *, Tensor out=None)"),
    "clamp_max_": ("clamp_max_(Tensor input, Tensor max)",
                   "clamp_max_(Tensor input, Scalar max)"),
    "clamp_min": ("clamp_min(Tensor input, Tensor min, *, Tensor out=None)",
                  "clamp_min(Tensor input, Scalar min, *, Tensor out=None)"),
    "clamp_min_": ("clamp_min_(Tensor input, Tensor min)",
                   "clamp_min_(Tensor input, Scalar min)"),
    "clip": ("clip(Tensor input, Tensor? min=None, Tensor? max=None, *, Tensor out=None)",
             "clip(Tensor input, Scalar? min=None, Scalar? max=None, *, Tensor out=None)"),
    "clip_": ("clip_(Tensor input, Tensor? min=None, Tensor? max=None)",
              "clip_(Tensor input, Scalar? min=None, Scalar? max=None)"),
    "coalesce": ("coalesce()|method",),
    "column_stack": ("column_stack(Tensor[] tensors, *, Tensor out=None)",),
    "combinations": ("combinations(Tensor input, int r=2, bool with_replacement=False)",),
    "complex": ("complex(Tensor real, Tensor imag, *, Tensor out=None)",),
    "concat": ("concat(Tensor[] tensors, int dim=0, *, Tensor out=None)",),
    "concatenate": ("concatenate(Tensor[] tensors, int dim=0, *, Tensor out=None)",),
    "conj_physical_": ("conj_physical_(Tensor input)",),
    "constant_pad_nd": ("constant_pad_nd(Tensor input, SymInt[] pad, Scalar value=0)",),
    "conv_tbc": ("conv_tbc(Tensor input, Tensor weight, Tensor bias, int pad=0)",),
    "convolution": ("convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, "
                    "SymInt[] padding, SymInt[] dilation, bool transposed, "
                    "SymInt[] output_padding, SymInt groups)",),
    "copysign": ("copysign(Tensor input, Tensor other, *, Tensor out=None)",
                 "copysign(Tensor input, Scalar other, *, Tensor out=None)"),
    "copysign_": ("copysign_(Tensor other)|method",
                  "copysign_(Scalar other)|method"),
    "corrcoef": ("corrcoef(Tensor input)",),
    "cos_": ("cos_(Tensor input)",),
    "cosh": ("cosh(Tensor input, *, Tensor out=None)",),
    "cosh_": ("cosh_(Tensor input)",),
    "cosine_embedding_loss": ("cosine_embedding_loss(Tensor input1, Tensor input2, "
                              "Tensor target, float margin=0.0, "
                              "int reduction=at::Reduction::Mean)",),
    "cov": ("cov(Tensor input, *, int correction=1, Tensor? fweights=None, "
            "Tensor? aweights=None)",),
    "ctc_loss": ("ctc_loss(Tensor log_probs, Tensor targets, int[] input_lengths, "
                 "int[] target_lengths, int blank=0, int reduction=at::Reduction::Mean, "
                 "bool zero_infinity=False)",
                 "ctc_loss(Tensor log_probs, Tensor targets, Tensor input_lengths, "
                 "Tensor target_lengths, int blank=0, int reduction=at::Reduction::Mean, "
                 "bool zero_infinity=False)"),
    "cumprod_": ("cumprod_(int dim, *, dtype? dtype=None)|method",),
    "cumsum_": ("cumsum_(int dim, *, dtype? dtype=None)|method",),
    "cumulative_trapezoid": ("cumulative_trapezoid(Tensor y, Tensor x, *, int dim=-1)",
                             "cumulative_trapezoid(Tensor y, *, Scalar dx=1, int dim=-1)"),
    "deg2rad": ("deg2rad(Tensor input, *, Tensor out=None)",),
    "deg2rad_": ("deg2rad_(Tensor input)",),
    "dense_dim": ("dense_dim()|method",),
    "det": ("det(Tensor input)",),
    "detach_": ("detach_(Tensor input)",),
    "detach_copy": ("detach_copy(Tensor input, *, Tensor out=None)",),
    "diag_embed": ("diag_embed(Tensor input, int offset=0, int dim1=-2, int dim2=-1)",),
    "diagonal_copy": ("diagonal_copy(Tensor input, int offset=0, int dim1=0, int dim2=1, *, "
                      "Tensor out=None)",),
    "diagonal_scatter": ("diagonal_scatter(Tensor input, Tensor src, int offset=0, int dim1=0, "
                         "int dim2=1)",),
    "digamma": ("digamma(Tensor input, *, Tensor out=None)",),
    "digamma_": ("digamma_()|method",),
    "dist": ("dist(Tensor input, Tensor other, Scalar p=2)",),
    "div_": ("div_(Tensor other)|method",
             "div_(Tensor other, *, str? rounding_mode)|method",
             "div_(Scalar other, *, str? rounding_mode)|method"),
    "divide": ("divide(Tensor input, Tensor other, *, Tensor out=None)",
               "divide(Tensor input, Tensor other, *, str? rounding_mode, Tensor out=None)",
               "divide(Tensor input, Scalar other)",
               "divide(Tensor input, Scalar other, *, str? rounding_mode)"),
    "divide_": ("divide_(Tensor other)|method",
                "divide_(Tensor other, *, str? rounding_mode)|method",
                "divide_(Scalar other)|method",
                "divide_(Scalar other, *, str? rounding_mode)|method"),
    "dropout": ("dropout(Tensor input, float p, bool train)",),
    "dropout_": ("dropout_(Tensor input, float p, bool train)",),
    "dstack": ("dstack(Tensor[] tensors, *, Tensor out=None)",),
    "embedding": ("embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, "
                  "bool scale_grad_by_freq=False, bool sparse=False)",),
    "embedding_bag": ("embedding_bag(Tensor weight, Tensor indices, Tensor offsets, "
                      "bool scale_grad_by_freq, int mode, bool sparse, "
                      "Tensor? per_sample_weights, bool include_last_offset, int? padding_idx)",
                      "embedding_bag(Tensor weight, Tensor indices, Tensor offsets, "
                      "bool scale_grad_by_freq=False, int mode=0, bool sparse=False, "
                      "Tensor? per_sample_weights=None, bool include_last_offset=False)"),
    "embedding_renorm_": ("embedding_renorm_(Tensor input, Tensor indices, float max_norm, "
                          "float norm_type)",),
    "empty_permuted": ("empty_permuted(SymInt[] size, int[] physical_layout, *, "
                       "dtype? dtype=None, Layout? layout=None, Device? device=None, "
                       "bool? pin_memory=False, bool? requires_grad=False)",),
    "empty_strided": ("empty_strided(SymInt[] size, SymInt[] stride, *, dtype? dtype=None, "
                      "Layout? layout=None, Device? device=None, bool? pin_memory=False, "
                      "bool? requires_grad=False)",),
    "eq_": ("eq_(Tensor other)|method",
            "eq_(Scalar other)|method"),
    "erf": ("erf(Tensor input, *, Tensor out=None)",),
    "erf_": ("erf_(Tensor input)",),
    "erfc": ("erfc(Tensor input, *, Tensor out=None)",),
    "erfc_": ("erfc_(Tensor input)",),
    "erfinv": ("erfinv(Tensor input, *, Tensor out=None)",),
    "erfinv_": ("erfinv_()|method",),
    "exp2_": ("exp2_(Tensor input)",),
    "exp_": ("exp_(Tensor input)",),
    "expm1_": ("expm1_(Tensor input)",),
    "exponential_": ("exponential_(float lambd=1, *, Generator? generator=None)|method",),
    "feature_alpha_dropout": ("feature_alpha_dropout(Tensor input, float p, bool train)",),
    "feature_alpha_dropout_": ("feature_alpha_dropout_(Tensor input, float p, bool train)",),
    "feature_dropout": ("feature_dropout(Tensor input, float p, bool train)",),
    "feature_dropout_": ("feature_dropout_(Tensor input, float p, bool train)",),
    "fill_diagonal_": ("fill_diagonal_(Scalar fill_value, bool wrap=False)|method",),
    "fix": ("fix(Tensor input, *, Tensor out=None)",),
    "fix_": ("fix_(Tensor input)",),
    "fliplr": ("fliplr(Tensor input)",),
    "flipud": ("flipud(Tensor input)",),
    "float_power": ("float_power(Tensor input, Tensor exponent, *, Tensor out=None)",
                    "float_power(Scalar self, Tensor exponent, *, Tensor out=None)|fn",
                    "float_power(Tensor input, Scalar exponent, *, Tensor out=None)"),
    "float_power_": ("float_power_(Tensor exponent)|method",
                     "float_power_(Scalar exponent)|method"),
    "floor_": ("floor_(Tensor input)",),
    "floor_divide_": ("floor_divide_(Tensor other)|method",
                      "floor_divide_(Scalar other)|method"),
    "fmax": ("fmax(Tensor input, Tensor other, *, Tensor out=None)",),
    "fmin": ("fmin(Tensor input, Tensor other, *, Tensor out=None)",),
    "fmod": ("fmod(Tensor input, Tensor other, *, Tensor out=None)",
             "fmod(Tensor input, Scalar other, *, Tensor out=None)"),
    "fmod_": ("fmod_(Tensor other)|method",
              "fmod_(Scalar other)|method"),
    "frac_": ("frac_(Tensor input)",),
    "frexp": ("frexp(Tensor input, *, Tensor[2] out=None)",),
    "frobenius_norm": ("frobenius_norm(Tensor input, int[1] dim, bool keepdim=False, *, "
                       "Tensor out=None)",),
    "from_file": ("from_file(str filename, bool? shared=None, int? size=0, *, "
                  "dtype? dtype=None, Layout? layout=None, Device? device=None, "
                  "bool? pin_memory=False, bool? requires_grad=False)",),
    "gcd": ("gcd(Tensor input, Tensor other, *, Tensor out=None)",),
    "gcd_": ("gcd_(Tensor input, Tensor other)",),
    "ge_": ("ge_(Tensor other)|method",
            "ge_(Scalar other)|method"),
    "geometric_": ("geometric_(float p, *, Generator? generator=None)|method",),
    "geqrf": ("geqrf(Tensor input, *, Tensor[2] out=None)",),
    "ger": ("ger(Tensor input, Tensor vec2, *, Tensor out=None)",),
    "gradient": ("gradient(Tensor input, *, int[] dim, int edge_order=1)",
                 "gradient(Tensor input, *, Scalar spacing, int[] dim, int edge_order=1)",
                 "gradient(Tensor input, *, Scalar? spacing=None, int? dim=None, "
                 "int edge_order=1)",
                 "gradient(Tensor input, *, Scalar[] spacing, int? dim=None, int edge_order=1)",
                 "gradient(Tensor input, *, Scalar[] spacing, int[] dim, int edge_order=1)",
                 "gradient(Tensor input, *, Tensor[] spacing, int? dim=None, int edge_order=1)",
                 "gradient(Tensor input, *, Tensor[] spacing, int[] dim, int edge_order=1)"),
    "greater": ("greater(Tensor input, Tensor other, *, Tensor out=None)",
                "greater(Tensor input, Scalar other, *, Tensor out=None)"),
    "greater_": ("greater_(Tensor other)|method",
                 "greater_(Scalar other)|method"),
    "greater_equal": ("greater_equal(Tensor input, Tensor other, *, Tensor out=None)",
                      "greater_equal(Tensor input, Scalar other, *, Tensor out=None)"),
    "greater_equal_": ("greater_equal_(Tensor other)|method",
                       "greater_equal_(Scalar other)|method"),
    "grid_sampler": ("grid_sampler(Tensor input, Tensor grid, int interpolation_mode, "
                     "int padding_mode, bool align_corners)",),
    "group_norm": ("group_norm(Tensor input, int num_groups, Tensor? weight=None, "
                   "Tensor? bias=None, float eps=1e-05, bool cudnn_enabled=True)",),
    "gru": ("gru(Tensor data, Tensor batch_sizes, Tensor hx, Tensor[] params, bool has_biases, "
            "int num_layers, float dropout, bool train, bool bidirectional)",
            "gru(Tensor input, Tensor hx, Tensor[] params, bool has_biases, int num_layers, "
            "float dropout, bool train, bool bidirectional, bool batch_first)"),
    "gru_cell": ("gru_cell(Tensor input, Tensor hx, Tensor w_ih, Tensor w_hh, "
                 "Tensor? b_ih=None, Tensor? b_hh=None)",),
    "gt_": ("gt_(Tensor other)|method",
            "gt_(Scalar other)|method"),
    "hamming_window": ("hamming_window(int window_length, *, dtype? dtype=None, "
                       "Layout? layout=None, Device? device=None, bool? pin_memory=False, "
                       "bool? requires_grad=False)",
                       "hamming_window(int window_length, bool periodic, *, dtype? dtype=None, "
                       "Layout? layout=None, Device? device=None, bool? pin_memory=False, "
                       "bool? requires_grad=False)",
                       "hamming_window(int window_length, bool periodic, float alpha, *, "
                       "dtype? dtype=None, Layout? layout=None, Device? device=None, "
                       "bool? pin_memory=False, bool? requires_grad=False)",
                       "hamming_window(int window_length, bool periodic, float alpha, "
                       "float beta, *, dtype? dtype=None, Layout? layout=None, "
                       "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)"),
    "hann_window": ("hann_window(int window_length, *, dtype? dtype=None, Layout? layout=None, "
                    "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)",
                    "hann_window(int window_length, bool periodic, *, dtype? dtype=None, "
                    "Layout? layout=None, Device? device=None, bool? pin_memory=False, "
                    "bool? requires_grad=False)"),
    "hardshrink": ("hardshrink(Tensor input, Scalar lambd=0.5, *, Tensor out=None)",),
    "hash_tensor": ("hash_tensor(Tensor input, int[1] dim=None, *, bool keepdim=False, "
                    "int mode=0, Tensor out=None)",),
    "heaviside": ("heaviside(Tensor input, Tensor values, *, Tensor out=None)",),
    "heaviside_": ("heaviside_(Tensor values)|method",),
    "hinge_embedding_loss": ("hinge_embedding_loss(Tensor input, Tensor target, "
                             "float margin=1.0, int reduction=at::Reduction::Mean)",),
    "histc": ("histc(Tensor input, int bins=100, Scalar min=0, Scalar max=0, *, "
              "Tensor out=None)",),
    "histogram": ("histogram(Tensor input, Tensor bins, *, Tensor? weight=None, "
                  "bool density=False, Tensor[2] out=None)",
                  "histogram(Tensor input, int bins=100, *, float[]? range=None, "
                  "Tensor? weight=None, bool density=False, Tensor[2] out=None)"),
    "histogramdd": ("histogramdd(Tensor input, int bins, float[]? range=None, "
                    "Tensor? weight=None, bool density=False)",
                    "histogramdd(Tensor input, int[] bins, float[]? range=None, "
                    "Tensor? weight=None, bool density=False)",
                    "histogramdd(Tensor input, Tensor[] bins, float[]? range=None, "
                    "Tensor? weight=None, bool density=False)"),
    "hstack": ("hstack(Tensor[] tensors, *, Tensor out=None)",),
    "hypot": ("hypot(Tensor input, Tensor other, *, Tensor out=None)",),
    "hypot_": ("hypot_(Tensor other)|method",),
    "i0": ("i0(Tensor input, *, Tensor out=None)",),
    "i0_": ("i0_(Tensor input)",),
    "igamma": ("igamma(Tensor input, Tensor other, *, Tensor out=None)",),
    "igamma_": ("igamma_(Tensor other)|method",),
    "igammac": ("igammac(Tensor input, Tensor other, *, Tensor out=None)",),
    "igammac_": ("igammac_(Tensor other)|method",),
    "imag": ("imag(Tensor input)",),
    "index_add_": ("index_add_(int dim, Tensor index, Tensor source, *, Scalar alpha=1)|method",),
    "index_copy_": ("index_copy_(int dim, Tensor index, Tensor source)|method",),
    "index_fill_": ("index_fill_(int dim, Tensor index, Tensor value)|method",
                    "index_fill_(int dim, Tensor index, Scalar value)|method"),
    "index_put": ("index_put(Tensor input, Tensor[] indices, Tensor values, "
                  "bool accumulate=False)",),
    "index_put_": ("index_put_(Tensor input, Tensor[] indices, Tensor values, "
                   "bool accumulate=False)",),
    "index_reduce_": ("index_reduce_(int dim, Tensor index, Tensor source, str reduce, *, "
                      "bool include_self=True)|method",),
    "indices": ("indices()|method",),
    "inner": ("inner(Tensor input, Tensor other, *, Tensor out=None)",),
    "instance_norm": ("instance_norm(Tensor input, Tensor? weight, Tensor? bias, "
                      "Tensor? running_mean, Tensor? running_var, bool use_input_stats, "
                      "float momentum, float eps, bool cudnn_enabled)",),
    "inverse": ("inverse(Tensor input, *, Tensor out=None)",),
    "is_coalesced": ("is_coalesced()|method",),
    "is_complex": ("is_complex(Tensor input)",),
    "is_conj": ("is_conj(Tensor input)",),
    "is_distributed": ("is_distributed(Tensor input)",),
    "is_floating_point": ("is_floating_point(Tensor input)",),
    "is_inference": ("is_inference(Tensor input)",),
    "is_neg": ("is_neg(Tensor input)",),
    "is_nonzero": ("is_nonzero(Tensor input)",),
    "is_pinned": ("is_pinned(Device? device=None)|method",),
    "is_same_size": ("is_same_size(Tensor input, Tensor other)",),
    "is_set_to": ("is_set_to(Tensor tensor)|method",),
    "is_signed": ("is_signed(Tensor input)",),
    "isclose": ("isclose(Tensor input, Tensor other, float rtol=1e-05, float atol=1e-08, "
                "bool equal_nan=False)",),
    "isfinite": ("isfinite(Tensor input)",),
    "isin": ("isin(Tensor elements, Tensor test_elements, *, bool assume_unique=False, "
             "bool invert=False, Tensor out=None)",
             "isin(Scalar element, Tensor test_elements, *, bool assume_unique=False, "
             "bool invert=False, Tensor out=None)",
             "isin(Tensor elements, Scalar test_element, *, bool assume_unique=False, "
             "bool invert=False, Tensor out=None)"),
    "isinf": ("isinf(Tensor input)",),
    "isneginf": ("isneginf(Tensor input, *, Tensor out=None)",),
    "isposinf": ("isposinf(Tensor input, *, Tensor out=None)",),
    "isreal": ("isreal(Tensor input)",),
    "istft": ("istft(Tensor input, int n_fft, int? hop_length=None, int? win_length=None, "
              "Tensor? window=None, bool center=True, bool normalized=False, "
              "bool? onesided=None, int? length=None, bool return_complex=False)",),
    "kaiser_window": ("kaiser_window(int window_length, *, dtype? dtype=None, "
                      "Layout? layout=None, Device? device=None, bool? pin_memory=False, "
                      "bool? requires_grad=False)",
                      "kaiser_window(int window_length, bool periodic, *, dtype? dtype=None, "
                      "Layout? layout=None, Device? device=None, bool? pin_memory=False, "
                      "bool? requires_grad=False)",
                      "kaiser_window(int window_length, bool periodic, float beta, *, "
                      "dtype? dtype=None, Layout? layout=None, Device? device=None, "
                      "bool? pin_memory=False, bool? requires_grad=False)"),
    "kl_div": ("kl_div(Tensor input, Tensor target, int reduction=at::Reduction::Mean, *, "
               "bool log_target=False)",),
    "lcm": ("lcm(Tensor input, Tensor other, *, Tensor out=None)",),
    "lcm_": ("lcm_(Tensor input, Tensor other)",),
    "ldexp": ("ldexp(Tensor input, Tensor other, *, Tensor out=None)",),
    "ldexp_": ("ldexp_(Tensor input, Tensor other)",),
    "le_": ("le_(Tensor other)|method",
            "le_(Scalar other)|method"),
    "lerp_": ("lerp_(Tensor end, Tensor weight)|method",
              "lerp_(Tensor end, Scalar weight)|method"),
    "less": ("less(Tensor input, Tensor other, *, Tensor out=None)",
             "less(Tensor input, Scalar other, *, Tensor out=None)"),
    "less_": ("less_(Tensor other)|method",
              "less_(Scalar other)|method"),
    "less_equal": ("less_equal(Tensor input, Tensor other, *, Tensor out=None)",
                   "less_equal(Tensor input, Scalar other, *, Tensor out=None)"),
    "less_equal_": ("less_equal_(Tensor other)|method",
                    "less_equal_(Scalar other)|method"),
    "lgamma": ("lgamma(Tensor input, *, Tensor out=None)",),
    "lgamma_": ("lgamma_()|method",),
    "log10_": ("log10_(Tensor input)",),
    "log1p_": ("log1p_(Tensor input)",),
    "log2_": ("log2_(Tensor input)",),
    "log_": ("log_(Tensor input)",),
    "log_normal_": ("log_normal_(float mean=1, float std=2, *, "
                    "Generator? generator=None)|method",),
    "logaddexp": ("logaddexp(Tensor input, Tensor other, *, Tensor out=None)",),
    "logaddexp2": ("logaddexp2(Tensor input, Tensor other, *, Tensor out=None)",),
    "logical_and": ("logical_and(Tensor input, Tensor other, *, Tensor out=None)",),
    "logical_and_": ("logical_and_(Tensor other)|method",),
    "logical_not": ("logical_not(Tensor input, *, Tensor out=None)",),
    "logical_not_": ("logical_not_()|method",),
    "logical_or": ("logical_or(Tensor input, Tensor other, *, Tensor out=None)",),
    "logical_or_": ("logical_or_(Tensor other)|method",),
    "logical_xor": ("logical_xor(Tensor input, Tensor other, *, Tensor out=None)",),
    "logical_xor_": ("logical_xor_(Tensor other)|method",),
    "logit": ("logit(Tensor input, float? eps=None, *, Tensor out=None)",),
    "logit_": ("logit_(Tensor input, float? eps=None)",),
    "logspace": ("logspace(Tensor start, Tensor end, int steps, float base=10.0, *, "
                 "Tensor out=None, dtype? dtype=None, Layout? layout=None, "
                 "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)",
                 "logspace(Scalar start, Tensor end, int steps, float base=10.0, *, "
                 "Tensor out=None, dtype? dtype=None, Layout? layout=None, "
                 "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)",
                 "logspace(Tensor start, Scalar end, int steps, float base=10.0, *, "
                 "Tensor out=None, dtype? dtype=None, Layout? layout=None, "
                 "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)",
                 "logspace(Scalar start, Scalar end, int steps, float base=10.0, *, "
                 "Tensor out=None, dtype? dtype=None, Layout? layout=None, "
                 "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)"),
    "lstm": ("lstm(Tensor data, Tensor batch_sizes, Tensor[] hx, Tensor[] params, "
             "bool has_biases, int num_layers, float dropout, bool train, bool bidirectional)",
             "lstm(Tensor input, Tensor[] hx, Tensor[] params, bool has_biases, "
             "int num_layers, float dropout, bool train, bool bidirectional, bool batch_first)"),
    "lstm_cell": ("lstm_cell(Tensor input, Tensor[] hx, Tensor w_ih, Tensor w_hh, "
                  "Tensor? b_ih=None, Tensor? b_hh=None)",),
    "lt_": ("lt_(Tensor other)|method",
            "lt_(Scalar other)|method"),
    "lu_unpack": ("lu_unpack(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, "
                  "bool unpack_pivots=True, *, Tensor[3] out=None)",),
    "margin_ranking_loss": ("margin_ranking_loss(Tensor input1, Tensor input2, Tensor target, "
                            "float margin=0.0, int reduction=at::Reduction::Mean)",),
    "masked_fill_": ("masked_fill_(Tensor mask, Tensor value)|method",
                     "masked_fill_(Tensor mask, Scalar value)|method"),
    "masked_scatter_": ("masked_scatter_(Tensor mask, Tensor source)|method",),
    "matrix_power": ("matrix_power(Tensor input, int n, *, Tensor out=None)",),
    "max_pool1d": ("max_pool1d(Tensor input, int[1] kernel_size, int[1] stride=None, "
                   "int[1] padding=0, int[1] dilation=1, bool ceil_mode=False)",),
    "max_pool1d_with_indices": ("max_pool1d_with_indices(Tensor input, int[1] kernel_size, "
                                "int[1] stride=None, int[1] padding=0, int[1] dilation=1, "
                                "bool ceil_mode=False)",),
    "max_pool2d": ("max_pool2d(Tensor input, int[2] kernel_size, int[2] stride=None, "
                   "int[2] padding=0, int[2] dilation=1, bool ceil_mode=False)",),
    "max_pool3d": ("max_pool3d(Tensor input, int[3] kernel_size, int[3] stride=None, "
                   "int[3] padding=0, int[3] dilation=1, bool ceil_mode=False)",),
    "moveaxis": ("moveaxis(Tensor input, int source, int destination)",
                 "moveaxis(Tensor input, int[] source, int[] destination)"),
    "msort": ("msort(Tensor input, *, Tensor out=None)",),
    "mul_": ("mul_(Tensor other)|method",),
    "multinomial": ("multinomial(Tensor input, SymInt num_samples, bool replacement=False, *, "
                    "Generator? generator=None, Tensor out=None)",),
    "multiply": ("multiply(Tensor input, Tensor other, *, Tensor out=None)",
                 "multiply(Tensor input, Scalar other)"),
    "multiply_": ("multiply_(Tensor other)|method",
                  "multiply_(Scalar other)|method"),
    "mv": ("mv(Tensor input, Tensor vec, *, Tensor out=None)",),
    "mvlgamma": ("mvlgamma(Tensor input, int p, *, Tensor out=None)",),
    "mvlgamma_": ("mvlgamma_(int p)|method",),
    "nan_to_num_": ("nan_to_num_(Tensor input, float? nan=None, float? posinf=None, "
                    "float? neginf=None)",),
    "nanquantile": ("nanquantile(Tensor input, Tensor q, int? dim=None, bool keepdim=False, *, "
                    'str interpolation="linear", Tensor out=None)',
                    "nanquantile(Tensor input, float q, int? dim=None, bool keepdim=False, *, "
                    'str interpolation="linear", Tensor out=None)'),
    "narrow_copy": ("narrow_copy(Tensor input, int dim, SymInt start, SymInt length, *, "
                    "Tensor out=None)",),
    "native_channel_shuffle": ("native_channel_shuffle(Tensor input, SymInt groups)",),
    "native_dropout": ("native_dropout(Tensor input, float p, bool? train)",),
    "native_norm": ("native_norm(Tensor input, Scalar p=2)",
                    "native_norm(Tensor input, Scalar? p, int[1] dim, bool keepdim, "
                    "dtype? dtype)"),
    "ne_": ("ne_(Tensor other)|method",
            "ne_(Scalar other)|method"),
    "neg_": ("neg_(Tensor input)",),
    "negative": ("negative(Tensor input, *, Tensor out=None)",),
    "negative_": ("negative_(Tensor input)",),
    "new_empty_strided": ("new_empty_strided(SymInt[] size, SymInt[] stride, *, "
                          "dtype? dtype=None, Layout? layout=None, Device? device=None, "
                          "bool? pin_memory=False, bool? requires_grad=False)|method",),
    "nextafter": ("nextafter(Tensor input, Tensor other, *, Tensor out=None)",),
    "nextafter_": ("nextafter_(Tensor other)|method",),
    "norm_except_dim": ("norm_except_dim(Tensor v, int pow=2, int dim=0)",),
    "normal": ("normal(Tensor mean, Tensor std, *, Generator? generator=None, Tensor out=None)",
               "normal(Tensor mean, float std=1, *, Generator? generator=None, Tensor out=None)",
               "normal(float mean, Tensor std, *, Generator? generator=None, Tensor out=None)",
               "normal(float mean, float std, SymInt[] size, *, Generator? generator=None, "
               "Tensor out=None, dtype? dtype=None, Layout? layout=None, Device? device=None, "
               "bool? pin_memory=False, bool? requires_grad=False)"),
    "normal_": ("normal_(float mean=0, float std=1, *, Generator? generator=None)|method",),
    "not_equal": ("not_equal(Tensor input, Tensor other, *, Tensor out=None)",
                  "not_equal(Tensor input, Scalar other, *, Tensor out=None)"),
    "not_equal_": ("not_equal_(Tensor other)|method",
                   "not_equal_(Scalar other)|method"),
    "nuclear_norm": ("nuclear_norm(Tensor input, int[2] dim, bool keepdim=False, *, "
                     "Tensor out=None)",
                     "nuclear_norm(Tensor input, bool keepdim=False, *, Tensor out=None)"),
    "orgqr": ("orgqr(Tensor input, Tensor input2, *, Tensor out=None)",),
    "ormqr": ("ormqr(Tensor input, Tensor input2, Tensor input3, bool left=True, "
              "bool transpose=False, *, Tensor out=None)",),
    "pdist": ("pdist(Tensor input, float p=2)",),
    "pin_memory": ("pin_memory(Device? device=None)|method",),
    "pixel_shuffle": ("pixel_shuffle(Tensor input, int upscale_factor)",),
    "pixel_unshuffle": ("pixel_unshuffle(Tensor input, int downscale_factor)",),
    "poisson": ("poisson(Tensor input, Generator? generator=None)",),
    "poisson_nll_loss": ("poisson_nll_loss(Tensor input, Tensor target, bool log_input, "
                         "bool full, float eps, int reduction)",),
    "polar": ("polar(Tensor abs, Tensor angle, *, Tensor out=None)",),
    "polygamma": ("polygamma(int n, Tensor input, *, Tensor out=None)|fn",
                  "polygamma(int n)|method"),
    "polygamma_": ("polygamma_(int n)|method",),
    "positive": ("positive(Tensor input)",),
    "pow_": ("pow_(Tensor exponent)|method",
             "pow_(Scalar exponent)|method"),
    "prelu": ("prelu(Tensor input, Tensor weight)",),
    "promote_types": ("promote_types(dtype type1, dtype type2)",),
    "put_": ("put_(Tensor index, Tensor source, bool accumulate=False)|method",),
    "quantile": ("quantile(Tensor input, Tensor q, int? dim=None, bool keepdim=False, *, "
                 'str interpolation="linear", Tensor out=None)',
                 "quantile(Tensor input, float q, int? dim=None, bool keepdim=False, *, "
                 'str interpolation="linear", Tensor out=None)'),
    "rad2deg": ("rad2deg(Tensor input, *, Tensor out=None)",),
    "rad2deg_": ("rad2deg_(Tensor input)",),
    "rand_like": ("rand_like(Tensor input, *, Generator? generator, "
                  "MemoryFormat? memory_format=None, dtype? dtype=None, Layout? layout=None, "
                  "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)",
                  "rand_like(Tensor input, *, MemoryFormat? memory_format=None, "
                  "dtype? dtype=None, Layout? layout=None, Device? device=None, "
                  "bool? pin_memory=False, bool? requires_grad=False)"),
    "randint_like": ("randint_like(Tensor input, SymInt low, SymInt high, *, "
                     "Generator? generator, MemoryFormat? memory_format=None, "
                     "dtype? dtype=None, Layout? layout=None, Device? device=None, "
                     "bool? pin_memory=False, bool? requires_grad=False)",
                     "randint_like(Tensor input, SymInt low, SymInt high, *, "
                     "MemoryFormat? memory_format=None, dtype? dtype=None, "
                     "Layout? layout=None, Device? device=None, bool? pin_memory=False, "
                     "bool? requires_grad=False)",
                     "randint_like(Tensor input, Tensor high, *, Generator? generator, "
                     "MemoryFormat? memory_format=None, dtype? dtype=None, "
                     "Layout? layout=None, Device? device=None, bool? pin_memory=False, "
                     "bool? requires_grad=False)",
                     "randint_like(Tensor input, Tensor high, *, "
                     "MemoryFormat? memory_format=None, dtype? dtype=None, "
                     "Layout? layout=None, Device? device=None, bool? pin_memory=False, "
                     "bool? requires_grad=False)",
                     "randint_like(Tensor input, SymInt high, *, Generator? generator, "
                     "MemoryFormat? memory_format=None, dtype? dtype=None, "
                     "Layout? layout=None, Device? device=None, bool? pin_memory=False, "
                     "bool? requires_grad=False)",
                     "randint_like(Tensor input, SymInt high, *, "
                     "MemoryFormat? memory_format=None, dtype? dtype=None, "
                     "Layout? layout=None, Device? device=None, bool? pin_memory=False, "
                     "bool? requires_grad=False)"),
    "randn_like": ("randn_like(Tensor input, *, Generator? generator, "
                   "MemoryFormat? memory_format=None, dtype? dtype=None, Layout? layout=None, "
                   "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)",
                   "randn_like(Tensor input, *, MemoryFormat? memory_format=None, "
                   "dtype? dtype=None, Layout? layout=None, Device? device=None, "
                   "bool? pin_memory=False, bool? requires_grad=False)"),
    "random_": ("random_(*, Generator? generator=None)|method",
                "random_(int from, int? to, *, Generator? generator=None)|method",
                "random_(int to, *, Generator? generator=None)|method"),
    "ravel": ("ravel(Tensor input)",),
    "real": ("real(Tensor input)",),
    "reciprocal_": ("reciprocal_(Tensor input)",),
    "relu_": ("relu_(Tensor input)",),
    "remainder_": ("remainder_(Tensor other)|method",
                   "remainder_(Scalar other)|method"),
    "renorm_": ("renorm_(Scalar p, int dim, Scalar maxnorm)|method",),
    "resize_": ("resize_(SymInt[] size, *, MemoryFormat? memory_format=None)|method",),
    "resize_as_": ("resize_as_(Tensor input, Tensor the_template, *, "
                   "MemoryFormat? memory_format=None)",),
    "resolve_conj": ("resolve_conj(Tensor input)",),
    "resolve_neg": ("resolve_neg(Tensor input)",),
    "result_type": ("result_type(Tensor tensor, Tensor other)",
                    "result_type(Scalar scalar, Tensor tensor)",
                    "result_type(Tensor tensor, Scalar other)",
                    "result_type(Scalar scalar1, Scalar scalar2)"),
    "retain_grad": ("retain_grad()|method",),
    "rnn_relu": ("rnn_relu(Tensor data, Tensor batch_sizes, Tensor hx, Tensor[] params, "
                 "bool has_biases, int num_layers, float dropout, bool train, "
                 "bool bidirectional)",
                 "rnn_relu(Tensor input, Tensor hx, Tensor[] params, bool has_biases, "
                 "int num_layers, float dropout, bool train, bool bidirectional, "
                 "bool batch_first)"),
    "rnn_relu_cell": ("rnn_relu_cell(Tensor input, Tensor hx, Tensor w_ih, Tensor w_hh, "
                      "Tensor? b_ih=None, Tensor? b_hh=None)",),
    "rnn_tanh": ("rnn_tanh(Tensor data, Tensor batch_sizes, Tensor hx, Tensor[] params, "
                 "bool has_biases, int num_layers, float dropout, bool train, "
                 "bool bidirectional)",
                 "rnn_tanh(Tensor input, Tensor hx, Tensor[] params, bool has_biases, "
                 "int num_layers, float dropout, bool train, bool bidirectional, "
                 "bool batch_first)"),
    "rnn_tanh_cell": ("rnn_tanh_cell(Tensor input, Tensor hx, Tensor w_ih, Tensor w_hh, "
                      "Tensor? b_ih=None, Tensor? b_hh=None)",),
    "rot90": ("rot90(Tensor input, int k=1, int[] dims={0,1})",),
    "round_": ("round_(Tensor input)",
               "round_(Tensor input, *, int decimals)"),
    "row_stack": ("row_stack(Tensor[] tensors, *, Tensor out=None)",),
    "rrelu": ("rrelu(Tensor input, Scalar lower=0.125, Scalar upper=0.3333333333333333, "
              "bool training=False, Generator? generator=None)",),
    "rrelu_": ("rrelu_(Tensor input, Scalar lower=0.125, Scalar upper=0.3333333333333333, "
               "bool training=False, Generator? generator=None)",),
    "rsqrt_": ("rsqrt_(Tensor input)",),
    "rsub": ("rsub(Tensor input, Tensor other, *, Scalar alpha=1)",
             "rsub(Tensor input, Scalar other, Scalar alpha=1)"),
    "scalar_tensor": ("scalar_tensor(Scalar s, *, dtype? dtype=None, Layout? layout=None, "
                      "Device? device=None, bool? pin_memory=False, bool? requires_grad=False)",),
    "scatter_": ("scatter_(int dim, Tensor index, Tensor src)|method",
                 "scatter_(int dim, Tensor index, Tensor src, *, str reduce)|method",
                 "scatter_(int dim, Tensor index, Scalar value)|method",
                 "scatter_(int dim, Tensor index, Scalar value, *, str reduce)|method"),
    "scatter_add_": ("scatter_add_(int dim, Tensor index, Tensor src)|method",),
    "scatter_reduce_": ("scatter_reduce_(int dim, Tensor index, Tensor src, str reduce, *, "
                        "bool include_self=True)|method",),
    "searchsorted": ("searchsorted(Tensor sorted_sequence, Tensor input, *, "
                     "bool out_int32=False, bool right=False, str? side=None, "
                     "Tensor? sorter=None, Tensor out=None)",
                     "searchsorted(Tensor sorted_sequence, Scalar self, *, "
                     "bool out_int32=False, bool right=False, str? side=None, "
                     "Tensor? sorter=None, Tensor out=None)"),
    "segment_reduce": ("segment_reduce(Tensor data, str reduce, *, Tensor? lengths=None, "
                       "Tensor? indices=None, Tensor? offsets=None, int axis=0, "
                       "bool unsafe=False, Scalar? initial=None)",),
    "select_copy": ("select_copy(Tensor input, int dim, SymInt index, *, Tensor out=None)",),
    "selu": ("selu(Tensor input)",),
    "selu_": ("selu_(Tensor input)",),
    "sgn": ("sgn(Tensor input, *, Tensor out=None)",),
    "sgn_": ("sgn_()|method",),
    "sigmoid_": ("sigmoid_(Tensor input)",),
    "sign_": ("sign_()|method",),
    "signbit": ("signbit(Tensor input, *, Tensor out=None)",),
    "sin_": ("sin_(Tensor input)",),
    "sinc": ("sinc(Tensor input, *, Tensor out=None)",),
    "sinc_": ("sinc_(Tensor input)",),
    "sinh": ("sinh(Tensor input, *, Tensor out=None)",),
    "sinh_": ("sinh_(Tensor input)",),
    "slice_copy": ("slice_copy(Tensor input, int dim=0, SymInt? start=None, SymInt? end=None, "
                   "SymInt step=1, *, Tensor out=None)",),
    "slice_inverse": ("slice_inverse(Tensor input, Tensor src, int dim=0, SymInt? start=None, "
                      "SymInt? end=None, SymInt step=1)",),
    "slogdet": ("slogdet(Tensor input, *, Tensor[2] out=None)",),
    "sparse_dim": ("sparse_dim()|method",),
    "sparse_mask": ("sparse_mask(Tensor mask)|method",),
    "split_copy": ("split_copy(Tensor input, SymInt split_size, int dim=0, *, "
                   "Tensor[] out=None)",),
    "sqrt_": ("sqrt_(Tensor input)",),
    "square_": ("square_(Tensor input)",),
    "squeeze_": ("squeeze_()|method",
                 "squeeze_(int dim)|method",
                 "squeeze_(int[] dim)|method"),
    "squeeze_copy": ("squeeze_copy(Tensor input, *, Tensor out=None)",
                     "squeeze_copy(Tensor input, int dim, *, Tensor out=None)",
                     "squeeze_copy(Tensor input, int[] dim, *, Tensor out=None)"),
    "sub_": ("sub_(Scalar alpha, Tensor other)|method,hidden",
             "sub_(Tensor other, *, Scalar alpha=1)|method"),
    "subtract": ("subtract(Tensor input, Tensor other, *, Scalar alpha=1, Tensor out=None)",
                 "subtract(Tensor input, Scalar other, Scalar alpha=1)"),
    "subtract_": ("subtract_(Tensor other, *, Scalar alpha=1)|method",
                  "subtract_(Scalar other, Scalar alpha=1)|method"),
    "sum_to_size": ("sum_to_size(SymInt[] size)|method",),
    "swapaxes": ("swapaxes(Tensor input, int axis0, int axis1)",),
    "swapaxes_": ("swapaxes_(int axis0, int axis1)|method",),
    "swapdims": ("swapdims(Tensor input, int dim0, int dim1)",),
    "swapdims_": ("swapdims_(int dim0, int dim1)|method",),
    "t_": ("t_()|method",),
    "t_copy": ("t_copy(Tensor input, *, Tensor out=None)",),
    "take": ("take(Tensor input, Tensor index, *, Tensor out=None)",),
    "tan": ("tan(Tensor input, *, Tensor out=None)",),
    "tan_": ("tan_(Tensor input)",),
    "tanh_": ("tanh_(Tensor input)",),
    "threshold": ("threshold(Tensor input, Scalar threshold, Scalar value, *, Tensor out=None)",),
    "threshold_": ("threshold_(Tensor input, Scalar threshold, Scalar value)",),
    "to_dense": ("to_dense(dtype? dtype=None, *, bool? masked_grad=None)|method",),
    "trace": ("trace(Tensor input)",),
    "transpose_": ("transpose_(int dim0, int dim1)|method",),
    "trapezoid": ("trapezoid(Tensor y, Tensor x, *, int dim=-1)",
                  "trapezoid(Tensor y, *, Scalar dx=1, int dim=-1)"),
    "trapz": ("trapz(Tensor y, *, float dx=1, int dim=-1)",
              "trapz(Tensor y, Tensor x, *, int dim=-1)"),
    "triangular_solve": ("triangular_solve(Tensor input, Tensor A, bool upper=True, "
                         "bool transpose=False, bool unitriangular=False, *, "
                         "Tensor[2] out=None)",),
    "tril_": ("tril_(SymInt diagonal=0)|method",),
    "tril_indices": ("tril_indices(int row, int col, int offset=0, *, dtype? dtype=None, "
                     "Layout? layout=None, Device? device=None, bool? pin_memory=False, "
                     "bool? requires_grad=False)",),
    "triplet_margin_loss": ("triplet_margin_loss(Tensor anchor, Tensor positive, "
                            "Tensor negative, float margin=1.0, float p=2, float eps=1e-06, "
                            "bool swap=False, int reduction=at::Reduction::Mean)",),
    "triu_": ("triu_(SymInt diagonal=0)|method",),
    "triu_indices": ("triu_indices(int row, int col, int offset=0, *, dtype? dtype=None, "
                     "Layout? layout=None, Device? device=None, bool? pin_memory=False, "
                     "bool? requires_grad=False)",),
    "true_divide_": ("true_divide_(Tensor other)|method",
                     "true_divide_(Scalar other)|method"),
    "trunc_": ("trunc_(Tensor input)",),
    "uniform_": ("uniform_(float from=0, float to=1, *, Generator? generator=None)|method",),
    "unsafe_split_with_sizes": ("unsafe_split_with_sizes(Tensor input, SymInt[] split_sizes, "
                                "int dim=0)",),
    "unsqueeze_": ("unsqueeze_(int dim)|method",),
    "values": ("values()|method",),
    "vander": ("vander(Tensor x, int? N=None, bool increasing=False)",),
    "vdot": ("vdot(Tensor input, Tensor other, *, Tensor out=None)",),
    "view_as_complex": ("view_as_complex(Tensor input)",),
    "view_as_complex_copy": ("view_as_complex_copy(Tensor input, *, Tensor out=None)",),
    "view_as_real": ("view_as_real(Tensor input)",),
    "view_as_real_copy": ("view_as_real_copy(Tensor input, *, Tensor out=None)",),
    "vstack": ("vstack(Tensor[] tensors, *, Tensor out=None)",),
    "xlogy": ("xlogy(Tensor input, Tensor other, *, Tensor out=None)",
              "xlogy(Scalar self, Tensor other, *, Tensor out=None)|fn",
              "xlogy(Tensor input, Scalar other, *, Tensor out=None)"),
    "xlogy_": ("xlogy_(Tensor input, Tensor other)",
               "xlogy_(Tensor input, Scalar other)"),
}
