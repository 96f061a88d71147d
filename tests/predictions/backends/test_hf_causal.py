"""The Hugging Face backend end to end on a tiny random causal LM built in the test (no hub)."""

from __future__ import annotations

import math

import pytest

from predictions.backends import get_backend
from predictions.prompts import get_prompt, render
from tests.factories import ambistory_setup

pytestmark = pytest.mark.ml

WORDS = "1 2 3 4 5 the bank He stopped at was you text meaning word ***He".split()
TEMPLATE = (
    "{% for m in messages %}<|{{ m.role }}|> {{ m.content }} {% endfor %}"
    "{% if add_generation_prompt %}<|assistant|> {% endif %}"
)


def build_tiny_lm(path, chat_template: str | None = None):
    """A word-level tokenizer with the digits 1-5 and a ~2k-parameter random Llama."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    specials = ["<unk>", "<pad>", "<s>", "</s>", "<|user|>", "<|system|>", "<|assistant|>"]
    vocab = {token: i for i, token in enumerate([*specials, *WORDS])}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core,
        unk_token="<unk>",
        pad_token="<pad>",
        bos_token="<s>",
        eos_token="</s>",
    )
    if chat_template:
        tokenizer.chat_template = chat_template
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        intermediate_size=24,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=4096,
        initializer_range=0.5,
        pad_token_id=1,
        bos_token_id=2,
        eos_token_id=3,
    )
    model = LlamaForCausalLM(config)
    tokenizer.save_pretrained(path)
    model.save_pretrained(path)
    return sum(p.numel() for p in model.parameters())


def samples() -> list[dict]:
    fields = {"homonym", "judged_meaning", "example_sentence", "precontext", "sentence", "ending"}
    setup = ambistory_setup(0)
    return [{"id": sid, **{k: v for k, v in s.items() if k in fields}} for sid, s in setup.items()]


def reference_expected(path, text: str, add_special: bool) -> tuple[float, list[float]]:
    """The expected score computed by hand for one prompt, unbatched."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True)
    ids = tokenizer(text, return_tensors="pt", add_special_tokens=add_special)["input_ids"]
    with torch.inference_mode():
        logits = model(input_ids=ids).logits[0, -1]
    digit_ids = [tokenizer.convert_tokens_to_ids(d) for d in "12345"]
    probs = torch.softmax(logits[digit_ids].double(), dim=-1).tolist()
    return sum((i + 1) * p for i, p in enumerate(probs)), probs


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory):
    path = tmp_path_factory.mktemp("tiny-llama")
    n_params = build_tiny_lm(path)
    assert n_params < 5000
    return path


@pytest.fixture(scope="module")
def tiny_chat_lm(tmp_path_factory):
    path = tmp_path_factory.mktemp("tiny-chat-llama")
    build_tiny_lm(path, chat_template=TEMPLATE)
    return path


def test_it_scores_the_expected_value_of_the_five_digit_tokens(tiny_lm):
    backend = get_backend("hf_causal", model_path=str(tiny_lm), batch_size=4)
    batch = samples()

    outs = backend.predict_batch(batch)

    assert len(outs) == 6
    assert backend.device == "cpu" and backend.uses_chat_template() is False
    for sample, out in zip(batch, outs):
        text = backend.prompt_text(sample)
        expected, probs = reference_expected(tiny_lm, text, add_special=True)
        assert math.isfinite(out.score) and 1 <= out.score <= 5
        assert out.score == pytest.approx(expected, abs=1e-4)  # batched with padding == alone
        assert out.distribution == pytest.approx(probs, abs=1e-4)
        assert sum(out.distribution) == pytest.approx(1.0)
    assert len({round(o.score, 6) for o in outs}) > 1  # the story changes the answer


def test_the_plain_prompt_is_the_rendered_paper_prompt(tiny_lm):
    backend = get_backend("hf_causal", model_path=str(tiny_lm), prompt="ambistory-b3-4shot-v1")
    backend.prepare()
    sample = samples()[0]
    [message] = render(get_prompt("ambistory-b3-4shot-v1"), sample)
    assert backend.prompt_text(sample) == message["content"] + "\n"
    assert backend.prompt_version == "ambistory-b3-4shot-v1"


def test_it_uses_the_tokenizers_chat_template_when_there_is_one(tiny_chat_lm):
    backend = get_backend("hf_causal", model_path=str(tiny_chat_lm), device="auto")
    batch = samples()[:3]

    outs = backend.predict_batch(batch)

    text = backend.prompt_text(batch[0])
    assert text.startswith("<|user|> You will see a short text")
    assert text.endswith("<|assistant|> ")
    expected, _ = reference_expected(tiny_chat_lm, text, add_special=False)
    assert outs[0].score == pytest.approx(expected, abs=1e-4)
    assert "tiny-chat-llama" in backend.model_version()


def test_it_refuses_a_prompt_after_which_a_digit_is_not_a_token_of_its_own(tiny_lm):
    backend = get_backend("hf_causal", model_path=str(tiny_lm), answer_prefix="Score:")
    with pytest.raises(ValueError, match="answer_prefix"):
        backend.predict_batch(samples()[:1])
    ok = get_backend("hf_causal", model_path=str(tiny_lm), answer_prefix="Score: ")
    assert 1 <= ok.predict_batch(samples()[:1])[0].score <= 5


def test_it_refuses_a_path_that_is_not_a_local_directory(tmp_path):
    backend = get_backend("hf_causal", model_path=str(tmp_path / "meta-llama/Llama-3.1-8B"))
    with pytest.raises(FileNotFoundError, match="not a local model directory"):
        backend.prepare()


def test_it_refuses_the_comparative_prompt(tiny_lm):
    with pytest.raises(ValueError, match="one sense per prompt"):
        get_backend("hf_causal", model_path=str(tiny_lm), prompt="ambistory-comparative-v1")
