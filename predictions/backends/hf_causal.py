"""A local Hugging Face causal LM scored by its next-token probabilities of "1".."5".

After the paper's prompt (rendered through the tokenizer's chat template when it has one),
the score is the expected value of the softmax over the five digit tokens' logits, so the
model's uncertainty is kept and no text is generated or parsed. Weights load only from a
local directory (``local_files_only``), never from the hub.

Run parameters: ``model_path`` (required, a local directory), ``prompt`` (a single-sample
prompt id; default ``ambistory-b3-zeroshot-v1``), ``device`` (``auto``: cuda if available,
else cpu), ``dtype`` (``auto``: bfloat16 on cuda, float32 on cpu; or ``float32``/``float16``/
``bfloat16``), ``batch_size`` (default 8), ``chat_template`` (``auto``/``true``/``false``),
``answer_prefix`` (text appended after the prompt, e.g. ``"Answer: "`` for base models).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from predictions import parsing
from predictions.prompts import DEFAULT_PROMPT, get_prompt
from predictions.prompts import render as render_prompt

from .base import ParamError, PredictionOutput, PredictorBackend, SampleDict

DIGITS = ("1", "2", "3", "4", "5")


class HFCausalBackend(PredictorBackend):
    name = "hf_causal"
    version = "1"
    batch_size = 8

    def __init__(
        self,
        *,
        model_path: str = "",
        prompt: str = "",
        batch_size: int = batch_size,
        answer_prefix: str = "",
        device: str = "auto",
        dtype: str = "auto",
        chat_template: object = "auto",
    ):
        super().__init__(
            model_path=model_path,
            prompt=prompt,
            batch_size=batch_size,
            answer_prefix=answer_prefix,
            device=device,
            dtype=dtype,
            chat_template=chat_template,
        )
        if not model_path:
            raise ParamError("model_path", "hf_causal needs a local model directory")
        self.model_path = Path(model_path).expanduser()
        self.prompt = get_prompt(prompt or DEFAULT_PROMPT)
        if self.prompt.is_comparative:
            raise ValueError(f"hf_causal scores one sense per prompt; {self.prompt.id} needs two")
        self.prompt_version = self.prompt.id
        self.batch_size = int(batch_size)
        self.answer_prefix = str(answer_prefix)
        # transformers' model and tokenizer, and the torch device: loaded by prepare()
        self.model: Any = None
        self.tokenizer: Any = None
        self.device: Any = None
        self.digit_ids: list[int] = []
        self.boundary_checked = False

    # --- loading ---------------------------------------------------------------------------
    def prepare(self, fit_samples=None) -> None:
        """Load tokenizer and weights from ``model_path`` (no network) onto the device."""
        if self.model is not None:
            return
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        if not self.model_path.is_dir():
            raise FileNotFoundError(f"hf_causal: {self.model_path} is not a local model directory")
        self.device = self._device(torch)
        self.tokenizer = AutoTokenizer.from_pretrained(self.model_path, local_files_only=True)
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token or self.tokenizer.unk_token
        self.model = AutoModelForCausalLM.from_pretrained(
            self.model_path, local_files_only=True, dtype=self._dtype(torch)
        ).to(self.device)
        self.model.eval()
        self.digit_ids = self._digit_ids()

    def _device(self, torch) -> str:
        wanted = str(self.params.get("device", "auto"))
        if wanted == "auto":
            return "cuda" if torch.cuda.is_available() else "cpu"
        return wanted

    def _dtype(self, torch):
        wanted = str(self.params.get("dtype", "auto"))
        if wanted == "auto":
            return torch.bfloat16 if self.device.startswith("cuda") else torch.float32
        return getattr(torch, wanted)

    def _digit_ids(self) -> list[int]:
        """The token id of each digit as the answer's first token.

        SentencePiece tokenizers may split "4" into a word-start piece and the digit; the
        digit is the last piece either way.
        """
        ids = []
        for digit in DIGITS:
            pieces = self.tokenizer(digit, add_special_tokens=False)["input_ids"]
            if not pieces or pieces[-1] == self.tokenizer.unk_token_id:
                raise ValueError(f"hf_causal: the tokenizer has no token for {digit!r}")
            ids.append(pieces[-1])
        if len(set(ids)) != 5:
            raise ValueError(f"hf_causal: the digits 1-5 share tokens: {ids}")
        return ids

    # --- prompting -------------------------------------------------------------------------
    def uses_chat_template(self) -> bool:
        wanted = self.params.get("chat_template", "auto")
        has_one = bool(getattr(self.tokenizer, "chat_template", None))
        return has_one if wanted in ("auto", None) else bool(wanted) and has_one

    def prompt_text(self, sample: SampleDict) -> str:
        """The exact text whose next token is scored."""
        messages = render_prompt(self.prompt, sample)
        if self.uses_chat_template():
            text = self.tokenizer.apply_chat_template(
                messages, tokenize=False, add_generation_prompt=True
            )
        else:
            text = "\n\n".join(m["content"] for m in messages) + "\n"
        return text + self.answer_prefix

    def _encode(self, texts: list[str]):
        # A chat template writes its own special tokens (BOS); a plain prompt gets them here.
        special = not self.uses_chat_template()
        return self.tokenizer(
            texts, return_tensors="pt", padding=True, add_special_tokens=special
        ).to(self.device)

    def check_answer_boundary(self, text: str) -> None:
        """Refuse a prompt after which a digit would not be the next token on its own.

        The score reads the logits at the prompt's end, which is the probability of the answer
        only if tokenising prompt + "4" gives the prompt's tokens followed by the "4" token.
        """
        special = not self.uses_chat_template()
        base = self.tokenizer(text, add_special_tokens=special)["input_ids"]
        for digit, digit_id in zip(DIGITS, self.digit_ids):
            joined = self.tokenizer(text + digit, add_special_tokens=special)["input_ids"]
            if joined != [*base, digit_id]:
                raise ValueError(
                    f"hf_causal: after this prompt {digit!r} is not a token of its own; "
                    "set 'answer_prefix' (e.g. a space or a newline) so the answer starts cleanly"
                )
        self.boundary_checked = True

    # --- scoring ---------------------------------------------------------------------------
    def digit_logits(self, texts: list[str]) -> list[list[float]]:
        """Next-token logits of "1".."5" after each text (left padding, explicit positions)."""
        import torch

        batch = self._encode(texts)
        mask = batch["attention_mask"]
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        with torch.inference_mode():
            logits = self.model(
                input_ids=batch["input_ids"], attention_mask=mask, position_ids=positions
            ).logits[:, -1, :]
        return logits[:, self.digit_ids].float().cpu().tolist()

    def predict_batch(self, samples: Sequence[SampleDict]) -> list[PredictionOutput]:
        """Expected score over 1-5 per sample, with the distribution it came from."""
        self.prepare()
        outputs = []
        for start in range(0, len(samples), self.batch_size):
            texts = [self.prompt_text(s) for s in samples[start : start + self.batch_size]]
            if not self.boundary_checked:
                self.check_answer_boundary(texts[0])
            for logits in self.digit_logits(texts):
                score, dist = parsing.softmax_expected(logits)
                raw = " ".join(f"{d}:{p:.4f}" for d, p in zip(DIGITS, dist))
                outputs.append(PredictionOutput(score=score, raw_output=raw, distribution=dist))
        return outputs

    def model_version(self) -> str:
        """The directory's name and a hash of its config and weight files' names and sizes.

        Hashing the weights themselves would read gigabytes; names and sizes change with them.
        """
        digest = hashlib.sha256()
        config = self.model_path / "config.json"
        if config.exists():
            digest.update(config.read_bytes())
        for weights in sorted(self.model_path.glob("*.safetensors")) + sorted(
            self.model_path.glob("*.bin")
        ):
            digest.update(f"{weights.name}:{weights.stat().st_size}".encode())
        return f"{self.model_path.name} ({digest.hexdigest()[:12]})"
