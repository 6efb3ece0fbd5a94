"""The model zoo: models as TOML data files (`zoo/*.toml` beside this module, or a user's file), loaded strictly.

Four kinds, each a frozen dataclass whose fields are core.fields declarations (unit, bounds, help, source):

- `transformer` (the default kind): a model by its shape — `layers`, `hidden`, `heads`, `seq_len`, `vocab` are
  all a file needs; optional FFN width, grouped-query heads, gated (SwiGLU) MLP, RMSNorm, rotary positions,
  untied embeddings, multi-head latent attention, mixture of experts, an encoder for encoder–decoder models.
- `generic`: any model by its parameters, FLOPs and activation bytes per sample, and the bytes its model
  parallelism moves per sample.
- `cnn`: a ResNet or VGG by its architecture, timed layer by layer (workloads.cnn): ResNet-50, VGG-16.
- `dlrm`: embedding tables sharded by model parallelism (all-to-all), dense MLPs data-parallel.

    kind = "transformer"
    layers = 24
    hidden = 1024
    heads = 16
    seq_len = 1024
    vocab = 50257

Unknown keys, wrong units, out-of-range values and keys that have no effect for the model (MoE keys without
experts, MLA ranks without MLA) are InputErrors that name the file and the key. Every shipped number carries a
source with its tag: the file's `source` and `tag` cover its shape, a `[sources]` table names the keys that
come from elsewhere.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

from core.errors import InputError, did_you_mean, shown
from core.fields import Spec, param, specs
from core.records import record
from workloads import kinds
from workloads.files import TAGS, check_known, check_source, parse_spec, read_toml
from workloads.flop_units import parse_flops

ZOO_DIR = Path(__file__).with_name("zoo")
_YES_NO = ("yes", "no")


def required(unit: str, help: str, **bounds):
    """A declared field with no default: a model file must give it."""
    spec = Spec(unit=unit, help=help, source="the model file", default_text="", **bounds)
    return dataclasses.field(metadata={"spec": spec})


def counts(help: str):
    """A declared list of whole numbers ≥ 1 (layer widths, table rows)."""
    spec = Spec(unit="1", help=help, source="the model file", default_text="[]", lo=1, integer=True)
    return dataclasses.field(default=(), metadata={"spec": spec, "list": True})


def flops(help: str):
    """A required FLOP count per sample, written '4.1 GFLOP' (the unit registry has no FLOP)."""
    spec = Spec(unit="FLOP", help=help, source="the model file", default_text="")
    return dataclasses.field(metadata={"spec": spec})


@record(kw_only=True)
class ModelInfo:
    """What every model file carries besides its numbers."""

    name: str
    kind: str
    description: str = ""
    source: str = ""
    tag: str = ""
    notes: str = ""
    sources: Mapping[str, str] = dataclasses.field(default_factory=dict)
    file: str = ""
    stack: str = ""  # the training software it runs under unless told (workloads.stacks); "" the kind's default

    def __hash__(self) -> int:  # the sources are a read-only mapping: hashed by their items (models key caches)
        return hash((self.name, self.kind, self.description, self.source, self.tag, self.notes,
                     tuple(sorted(self.sources.items())), self.file, self.stack))


@record(kw_only=True)
class TransformerModel:
    """A transformer by its shape. Widths left at 0 take their usual value (ffn_hidden 4·hidden, kv_heads = heads,
    head_dim = hidden/heads); the derived properties below resolve them."""

    info: ModelInfo
    layers: int = required("1", "transformer layers (the decoder's, for encoder–decoder models)", lo=1,
                           integer=True)
    hidden: int = required("1", "hidden size h", lo=1, integer=True)
    heads: int = required("1", "attention heads a", lo=1, integer=True)
    seq_len: int = required("1", "sequence length s (tokens per sample)", lo=1, integer=True)
    vocab: int = required("1", "vocabulary size V", lo=1, integer=True)
    ffn_hidden: int = param(0, "1", "MLP inner width (0: 4·hidden)", "Vaswani et al. 2017: d_ff = 4·d_model "
                            "[restated]", lo=0, integer=True)
    kv_heads: int = param(0, "1", "key/value heads for grouped-query attention (0: = heads)", "—", lo=0,
                          integer=True)
    head_dim: int = param(0, "1", "query/key width per head (0: hidden/heads)", "—", lo=0, integer=True)
    mlp: str = param("gelu", "choice", "MLP: 'gelu' (two matrices) or 'swiglu' (gated, three matrices)",
                     "—", choices=("gelu", "swiglu"))
    norm: str = param("layernorm", "choice", "normalisation: 'layernorm' (scale and bias) or 'rmsnorm' "
                      "(scale)", "—", choices=("layernorm", "rmsnorm"))
    position: str = param("learned", "choice", "positions: 'learned' (a seq_len × hidden table), 'rotary' or "
                          "'sinusoidal' (no parameters)", "—", choices=("learned", "rotary", "sinusoidal"))
    embeddings: str = param("tied", "choice", "'tied': the output layer reuses the input embedding; 'untied': "
                            "its own vocab × hidden matrix", "—", choices=("tied", "untied"))
    biases: str = param("yes", "choice", "biases on the linear layers", "—", choices=_YES_NO)
    dropout: str = param("yes", "choice", "dropout after attention, on the attention probabilities and after "
                         "the MLP (1-byte masks stored, K22 §4.1)", "—", choices=_YES_NO)
    attention_mask: str = param("causal", "choice", "'causal' (decoder) or 'bidirectional' (encoder): fused "
                                "attention kernels skip the masked half when causal", "—",
                                choices=("causal", "bidirectional"))
    mean_tokens: int = param(0, "1", "real tokens per sequence on average when batches are unpadded or packed: the "
                             "layers run on those tokens and attention on sequences of that mean length (a lower bound "
                             "of Σ L²: shorter and longer sequences together cost more); 0: every sequence padded to "
                             "seq_len", "Krell et al. 2021 (arXiv 2107.02027): at sequence length 512 padding is more "
                             "than 50 % of BERT's Wikipedia tokens, and removing it speeds phase 2 up 2× [verbatim]",
                             lo=0, integer=True)
    predicted_tokens: float = param(1.0, "1", "share of the tokens whose output logits (and loss) are computed: 1 "
                                    "for language modelling; the masked share for masked-LM pre-training",
                                    "Devlin et al. 2019 §3.1: BERT masks 15 % of the tokens and predicts only "
                                    "those [restated]", lo=0.0, lo_open=True, hi=1.0)
    encoder_layers: int = param(0, "1", "encoder layers of an encoder–decoder model (0: decoder only); each "
                                "decoder layer then adds cross-attention", "—", lo=0, integer=True)
    attention: str = param("mha", "choice", "'mha' (multi-head, grouped-query with kv_heads) or 'mla' "
                           "(multi-head latent attention, DeepSeek-V2/V3)", "—", choices=("mha", "mla"))
    q_lora_rank: int = param(0, "1", "MLA: query compression rank (0: no query compression)", "—", lo=0,
                             integer=True)
    kv_lora_rank: int = param(0, "1", "MLA: key/value compression rank", "—", lo=0, integer=True)
    rope_head_dim: int = param(0, "1", "MLA: decoupled rotary key/query width per head", "—", lo=0,
                               integer=True)
    v_head_dim: int = param(0, "1", "value width per head (0: head_dim)", "—", lo=0, integer=True)
    experts: int = param(0, "1", "routed experts per MoE layer (0: a dense model)", "—", lo=0, integer=True)
    top_k: int = param(1, "1", "experts each token is routed to", "—", lo=1, integer=True)
    expert_ffn_hidden: int = param(0, "1", "MLP inner width of one expert (0: ffn_hidden)", "—", lo=0,
                                   integer=True)
    shared_experts: int = param(0, "1", "experts every token passes through besides its routed ones", "—",
                                lo=0, integer=True)
    dense_layers: int = param(0, "1", "leading layers that are dense (DeepSeek-V3: 3)", "—", lo=0, integer=True)
    moe_every: int = param(1, "1", "after the dense layers, every n-th layer is MoE (1: all; 2: every other)",
                           "—", lo=1, integer=True)
    capacity_factor: float = param(1.0, "1", "expert capacity over the uniform share (token slots = CF·k·T/E); "
                                   "padded kernels compute and send the whole capacity", "Fedus et al. JMLR 2022 "
                                   "§2.2 [restated]", lo=1.0)

    # --- resolved widths -------------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.info.name

    @property
    def tokens(self) -> int:
        """Tokens one sample puts through the layers: its real ones when sequences are unpadded or packed
        (`mean_tokens`), else the padded `seq_len`."""
        return self.mean_tokens or self.seq_len

    @property
    def ffn(self) -> int:
        return self.ffn_hidden or 4 * self.hidden

    @property
    def kv(self) -> int:
        return self.kv_heads or self.heads

    @property
    def qk_head_dim(self) -> int:
        return self.head_dim or self.hidden // self.heads

    @property
    def value_head_dim(self) -> int:
        return self.v_head_dim or self.qk_head_dim

    @property
    def expert_ffn(self) -> int:
        return self.expert_ffn_hidden or self.ffn

    @property
    def gated(self) -> bool:
        return self.mlp == "swiglu"

    @property
    def is_moe(self) -> bool:
        return self.experts > 0

    @property
    def moe_layers(self) -> int:
        """Decoder layers whose MLP is a mixture of experts."""
        if not self.is_moe:
            return 0
        after = max(0, self.layers - self.dense_layers)
        return -(-after // self.moe_every)

    @property
    def dense_mlp_layers(self) -> int:
        return self.layers - self.moe_layers

    def check_keys(self, data: dict, source: str) -> None:
        """InputError for keys of the file that contradict each other or have no effect."""
        if self.attention != "mla":
            _no_effect(source, data, _MLA_KEYS, "attention = 'mla'")
        elif not self.kv_lora_rank:
            raise InputError(f"{source}: attention = 'mla' needs kv_lora_rank > 0")
        if self.attention == "mla" and "kv_heads" in data:
            raise InputError(f"{source}: kv_heads has no effect with attention = 'mla' (keys and values come "
                             f"from the compressed latent)")
        if not self.is_moe:
            _no_effect(source, data, _MOE_KEYS, "experts > 0")
        elif self.top_k > self.experts:
            raise InputError(f"{source}: top_k = {self.top_k} exceeds experts = {self.experts}")
        if self.dense_layers >= self.layers and self.is_moe:
            raise InputError(f"{source}: dense_layers = {self.dense_layers} leaves no MoE layer of {self.layers}")
        if not self.head_dim and self.hidden % self.heads:
            raise InputError(f"{source}: hidden = {self.hidden} is not a multiple of heads = {self.heads}; "
                             f"give head_dim")
        if self.attention == "mha" and self.heads % self.kv:
            raise InputError(f"{source}: heads = {self.heads} is not a multiple of kv_heads = {self.kv}")
        if self.mean_tokens > self.seq_len:
            raise InputError(f"{source}: mean_tokens = {self.mean_tokens} exceeds seq_len = {self.seq_len} (the "
                             "real tokens of a sequence are at most its length)")


@record(kw_only=True)
class GenericModel:
    """Any model by its totals per sample: parameters, FLOPs, stored activations, and the bytes model
    parallelism moves between the GPUs of its group."""

    info: ModelInfo
    parameters: float = required("1", "trainable parameters", lo=1.0)
    forward_flops: float = flops("forward FLOPs per sample (2 per multiply–accumulate)")
    backward_to_forward: float = param(2.0, "1", "backward FLOPs over forward FLOPs", "weight and input "
                                       "gradients each cost one forward: 2 [inferred]", lo=0.0)
    activation_memory: float = required("B", "activation bytes stored per sample for the backward pass", lo=0.0)
    model_parallel_traffic: float = param("0 B", "B", "bytes per sample that model parallelism moves between "
                                          "the GPUs of its group per iteration, forward and backward together",
                                          "—", lo=0.0)
    model_parallel_collective: str = param("all-gather", "choice", "how that traffic moves",
                                           "—", choices=("all-gather", "all-reduce", "all-to-all",
                                                         "point-to-point"))

    @property
    def name(self) -> str:
        return self.info.name

    def check_keys(self, data: dict, source: str) -> None:
        """Nothing of a model by its totals contradicts itself."""


def widths(help: str):
    """A declared list of whole numbers ≥ 0 (layer widths; 0 a pooling step)."""
    spec = Spec(unit="1", help=help, source="the model file", default_text="[]", lo=0, integer=True)
    return dataclasses.field(default=(), metadata={"spec": spec, "list": True})


@record(kw_only=True)
class CnnModel:
    """A convolutional network by its architecture; its layers, parameters, FLOPs, stored activations and
    model-parallel traffic follow from it (workloads.cnn)."""

    info: ModelInfo
    architecture: str = param("resnet", "choice", "'resnet' (bottleneck or basic blocks, He et al. 2016, the "
                              "stride on the 3×3 convolution as torchvision's v1.5) or 'vgg' (Simonyan and "
                              "Zisserman 2015)", "—", choices=("resnet", "vgg"))
    blocks: tuple[int, ...] = counts("resnet: blocks per stage (ResNet-50: 3, 4, 6, 3)")
    bottleneck: str = param("yes", "choice", "resnet: bottleneck blocks (1×1, 3×3, 1×1 expanding 4×) or basic "
                            "(two 3×3)", "—", choices=_YES_NO)
    width: int = param(64, "1", "resnet: channels of the stem and the first stage", "He et al. 2016 [restated]",
                       lo=1, integer=True)
    channels: tuple[int, ...] = widths("vgg: output channels of each 3×3 convolution, 0 for a 2×2 max pool")
    fully_connected: tuple[int, ...] = widths("vgg: widths of the fully connected layers before the classifier")
    image_size: int = param(224, "1", "input image height and width in pixels", "ImageNet training crops "
                            "(He et al. 2016) [restated]", lo=8, integer=True)
    classes: int = param(1000, "1", "classifier outputs", "ImageNet-1k [restated]", lo=1, integer=True)
    backward_to_forward: float = 2.0  # data and weight gradients each cost one forward
    model_parallel_collective: str = "all-gather"
    _layers: tuple = dataclasses.field(default=(), init=False, repr=False, compare=False)  # built on first use

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def layers(self) -> tuple:
        """The layer table the architecture gives (workloads.cnn), built once per model: a search reads it for
        every strategy's step, parameters, FLOPs and traffic."""
        if not self._layers:
            from workloads import cnn

            built = (cnn.vgg_layers(self.channels, self.fully_connected, self.image_size, self.classes)
                     if self.architecture == "vgg" else
                     cnn.resnet_layers(self.blocks, self.width, self.image_size, self.classes,
                                       self.bottleneck == "yes"))
            object.__setattr__(self, "_layers", tuple(built))
        return self._layers

    @property
    def parameters(self) -> float:
        from workloads import cnn

        return float(cnn.parameters(self.layers))

    @property
    def forward_flops(self) -> float:
        from workloads import cnn

        return cnn.forward_flops(self.layers)

    @property
    def activation_memory(self) -> float:
        from workloads import cnn

        return cnn.stored_activation_bytes(self.layers)

    @property
    def model_parallel_traffic(self) -> float:
        from workloads import cnn

        return cnn.model_parallel_bytes(self.layers)

    def check_keys(self, data: dict, source: str) -> None:
        """InputError for keys of the other architecture, an architecture without its layers, an image pooled
        to nothing."""
        if self.architecture == "resnet":
            _no_effect(source, data, _VGG_KEYS, "architecture = 'vgg'")
            if not self.blocks:
                raise InputError(f"{source}: a resnet needs blocks (per stage, e.g. [3, 4, 6, 3])")
        else:
            _no_effect(source, data, _RESNET_KEYS, "architecture = 'resnet'")
            if not any(self.channels):
                raise InputError(f"{source}: a vgg needs channels (e.g. [64, 64, 0, 128, ...])")
        if self.image_size >> (len(self.blocks) + 1 if self.architecture == "resnet"
                               else sum(1 for c in self.channels if c == 0)) < 1:
            raise InputError(f"{source}: image_size = {self.image_size} is pooled to nothing by the network")


@record(kw_only=True)
class DlrmModel:
    """A DLRM: embedding tables (model-parallel, pooled lookups exchanged by all-to-all), a bottom MLP on the
    dense features, a feature interaction (DCN-v2 cross layers or pairwise dots) and a top MLP."""

    info: ModelInfo
    embedding_rows: tuple[int, ...] = counts("rows of each embedding table")
    embedding_dim: int = required("1", "embedding width D", lo=1, integer=True)
    multi_hot: tuple[int, ...] = counts("lookups per sample in each table (pooled to one vector)")
    dense_features: int = required("1", "dense input features", lo=1, integer=True)
    bottom_mlp: tuple[int, ...] = counts("bottom MLP layer widths")
    top_mlp: tuple[int, ...] = counts("top MLP layer widths (the last is the output)")
    interaction: str = param("dcn", "choice", "'dcn' (DCN-v2 low-rank cross layers) or 'dot' (pairwise dot "
                             "products)", "—", choices=("dcn", "dot"))
    dcn_layers: int = param(3, "1", "DCN-v2 cross layers", "MLPerf DLRM-DCNv2 [verbatim]", lo=0, integer=True)
    dcn_low_rank: int = param(512, "1", "DCN-v2 low rank", "MLPerf DLRM-DCNv2 [verbatim]", lo=1, integer=True)

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def tables(self) -> int:
        return len(self.embedding_rows)

    def check_keys(self, data: dict, source: str) -> None:
        """InputError for a multi-hot list of another length than the tables, DCN keys without DCN."""
        if len(self.multi_hot) != len(self.embedding_rows):
            raise InputError(f"{source}: multi_hot has {len(self.multi_hot)} entries for "
                             f"{len(self.embedding_rows)} embedding tables")
        if self.interaction != "dcn":
            _no_effect(source, data, _DCN_KEYS, "interaction = 'dcn'")


Model = TransformerModel | GenericModel | CnnModel | DlrmModel
for _kind, _record, _module in (("transformer", TransformerModel, "workloads.training"),
                                ("generic", GenericModel, "workloads.generic"), ("cnn", CnnModel, "workloads.generic"),
                                ("dlrm", DlrmModel, "workloads.generic")):
    kinds.defer(kinds.Deferred(_kind, _record, _module, f"{_kind.upper()}_KIND"))
_INFO_KEYS = ("name", "kind", "description", "source", "tag", "notes", "sources", "stack")

# keys that only have an effect in some configurations: given elsewhere, they are input errors
_MLA_KEYS = ("q_lora_rank", "kv_lora_rank", "rope_head_dim")
_MOE_KEYS = ("top_k", "expert_ffn_hidden", "shared_experts", "dense_layers", "moe_every", "capacity_factor")
_DCN_KEYS = ("dcn_layers", "dcn_low_rank")
_RESNET_KEYS = ("blocks", "bottleneck", "width")
_VGG_KEYS = ("channels", "fully_connected")


def _field_specs(cls) -> dict[str, tuple[Spec, bool]]:
    out = {}
    for f in dataclasses.fields(cls):
        if "spec" in f.metadata:
            out[f.name] = (f.metadata["spec"], f.metadata.get("list", False))
    return out


def model_from_mapping(data: dict, source: str, default_name: str = "") -> Model:
    """A model from a parsed TOML mapping; `source` names the file in error messages."""
    kind = data.get("kind", "transformer")
    known = kinds.names()
    if not isinstance(kind, str) or kind not in known:
        raise InputError(f"{source}: kind = {kind!r}: expected one of {', '.join(known)}{did_you_mean(kind, known)}")
    cls = kinds.model_record(kind)
    declared = _field_specs(cls)
    try:
        check_known(source, data, (*_INFO_KEYS, *declared))
    except InputError as exc:
        if "kind" in data:
            raise
        raise InputError(f"{exc} (the file gives no kind: read as kind = 'transformer'; one of "
                         f"{', '.join(known)})") from None
    values = {}
    for key, raw in data.items():
        if key in declared:
            values[key] = _parse(source, key, *declared[key], raw)
    needed = _required_keys(cls)
    missing = [key for key in needed if key not in values]
    if missing:
        raise InputError(f"{source}: missing key(s): {', '.join(missing)} (a {kind} model needs "
                         f"{', '.join(needed)})")
    info = _info(data, source, kind, default_name, declared)
    model = cls(info=info, **values)
    model.check_keys(data, source)
    return model


def _required_keys(cls) -> list[str]:
    return [f.name for f in dataclasses.fields(cls) if "spec" in f.metadata
            and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]


def _parse(source: str, key: str, spec: Spec, is_list: bool, raw):
    if is_list:
        if not isinstance(raw, list) or not raw:
            raise InputError(f"{source}: {key} = {raw!r}: expected a non-empty list of whole numbers")
        return tuple(parse_spec(source + ":", f"{key}[{i}]", spec, v) for i, v in enumerate(raw))
    if spec.unit == "FLOP":
        try:
            return parse_flops(raw, rate=False)
        except InputError as exc:
            raise InputError(f"{source}: {key} = {raw!r}: {exc}") from None
    if spec.unit == "choice" and spec.choices == _YES_NO and isinstance(raw, bool):  # TOML true/false
        raw = "yes" if raw else "no"
    return parse_spec(source + ":", key, spec, raw)


def _info(data: dict, source: str, kind: str, default_name: str, declared) -> ModelInfo:
    texts = {}
    for key in ("name", "description", "source", "notes", "stack"):
        value = data.get(key, "")
        if not isinstance(value, str):
            raise InputError(f"{source}: {key} = {value!r}: expected a text")
        texts[key] = value
    tag = data.get("tag", "")
    if tag and tag not in TAGS:
        raise InputError(f"{source}: tag = {tag!r}: expected one of {', '.join(TAGS)}{did_you_mean(tag, TAGS)}")
    sources = data.get("sources", {})
    if not isinstance(sources, dict):
        raise InputError(f"{source}: sources must be a [sources] table of key = \"source [tag]\"")
    check_known(f"{source}: [sources]", sources, tuple(declared))
    for key, text in sources.items():
        check_source(f"{source}:", key, text)
    name = texts["name"] or default_name
    if not name:
        raise InputError(f"{source}: give the model a name")
    if texts["stack"]:
        from workloads.stacks import get_stack

        try:
            get_stack(texts["stack"])
        except InputError as exc:
            raise InputError(f"{source}: stack = {texts['stack']!r}: {exc}") from None
    return ModelInfo(name=name, kind=kind, description=texts["description"], source=texts["source"], tag=tag,
                     notes=texts["notes"], sources=MappingProxyType(dict(sources)), file=source, stack=texts["stack"])


def _no_effect(source: str, data: dict, keys, condition: str) -> None:
    given = [key for key in keys if key in data]
    if given:
        raise InputError(f"{source}: {', '.join(given)} has no effect here: it applies only when {condition}")


def model_label(model) -> str:
    """How an error names a model: a zoo model by its name, a model from a file by its name and the file (whose
    numbers the error is about): 'mine (runs/mine.toml)'."""
    file = getattr(getattr(model, "info", None), "file", "")
    if not file or Path(file).parent == ZOO_DIR:
        return model.name
    return f"{model.name} ({file})"


def load_model_file(path) -> Model:
    """One model file (any path)."""
    path = Path(path)
    return model_from_mapping(read_toml(path), str(path), default_name=path.stem)


def zoo_models(folder: Path) -> Mapping[str, Model]:
    """The models of `folder` by name, each file read when its model is first asked for (a command trains one or two
    of the twenty): a zoo model is named as its file, so the names are the files' and no two are alike."""
    from core.toml_files import OnDemand

    paths = {path.stem: path for path in sorted(folder.glob("*.toml"))}

    def read(name: str) -> Model:
        model = load_model_file(paths[name])
        if model.name != name:
            raise InputError(f"{paths[name]}: the zoo's model {model.name!r} is named as its file, {name!r}")
        return model
    return OnDemand(paths, read)


@lru_cache(maxsize=1)
def zoo() -> Mapping[str, Model]:
    """The shipped models by name, each read once when first asked for (`zoo_models`)."""
    return zoo_models(ZOO_DIR)


def load_model(name_or_path) -> Model:
    """A zoo model by name, or a model file by path; InputError listing the zoo when neither exists."""
    text = str(name_or_path)
    if not text.strip():  # Path('') is '.', the working folder
        raise InputError(f"{text!r}: an empty model name; zoo: {', '.join(zoo())} (or give a .toml file)")
    path = Path(text)
    try:
        is_file = path.suffix == ".toml" or path.exists()
    except (OSError, ValueError) as exc:  # a name too long for the file system, a NUL: neither a file nor a model
        raise InputError(f"{shown(text)}: not a model of the zoo nor a readable model file "
                         f"({getattr(exc, 'strerror', None) or exc})") from None
    if is_file:
        return load_model_file(path)
    models = zoo()
    if text in models:
        return models[text]
    raise InputError(f"unknown model {text!r}{did_you_mean(text, models)}; zoo: {', '.join(models)} "
                     f"(or give a .toml file)")


def model_specs(kind: str = "transformer") -> dict[str, Spec]:
    """Key → declaration of a model kind (for help texts and listings)."""
    return specs(kinds.model_record(kind))


# --- SiP-ML's own workloads -----------------------------------------------------------------------------------
@record(kw_only=True)
class SipmlCase:
    """One of SiP-ML's three workloads as its simulator runs it: gradient bytes per all-reduce (float32), the
    fixed DP × MP split and the global batch (sipml.md)."""

    name: str
    model: str
    gradient_bytes: float = required("B", "bytes of the data-parallel gradient all-reduce", lo=0.0, lo_open=True)
    data_parallel: int = required("1", "data-parallel replicas", lo=1, integer=True)
    model_parallel: int = required("1", "GPUs per model-parallel group", lo=1, integer=True)
    global_batch: int = required("1", "samples per iteration", lo=1, integer=True)
    source: str = ""


@lru_cache(maxsize=1)
def sipml_cases() -> Mapping[str, SipmlCase]:
    """SiP-ML's ResNet-50, Transformer-big and GPT-2 355M cases (`sipml_cases.toml`)."""
    path = Path(__file__).with_name("sipml_cases.toml")
    declared = _field_specs(SipmlCase)
    cases = {}
    for name, table in read_toml(path).items():
        where = f"{path}: [{name}]"
        check_known(where, table, ("model", "source", *declared))
        missing = [key for key in ("model", "source", *declared) if key not in table]
        if missing:
            raise InputError(f"{where} missing key(s): {', '.join(missing)}")
        check_source(where, "source", table["source"])
        values = {key: _parse(where, key, *declared[key], table[key]) for key in declared}
        load_model(table["model"])  # the zoo must know the network
        cases[name] = SipmlCase(name=name, model=table["model"], source=table["source"], **values)
    return MappingProxyType(cases)
