"""qa/llm/model.py with a tiny randomly initialised Qwen2 model the tests build (folder and .gguf), so the real
loading and generation code runs; the replies are noise, so tests check the mechanics, not the wording."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from core.errors import InputError
from core.records import Chunk, ReportYear
from qa.records import Analysis, Question
from qa.understand.analyse import QuestionAnalyzer
from search.backend import Hit

torch = pytest.importorskip("torch", reason="the llm extra is not installed: pip install 'finqa[llm]'")
transformers = pytest.importorskip(
    "transformers", reason="the llm extra is not installed: pip install 'finqa[llm]'"
)

from qa.llm.model import (  # noqa: E402 - after the skip
    LLMSettings,
    LocalLLM,
    first_sentence,
    numbers,
    numbers_within,
    parse_json_reply,
    rephrase_keeps_numbers,
    unsupported,
)

CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
TRAINING_TEXT = [
    "2021年华夏银行的营业外支出是多少元?",
    '["研发费用"]',
    '["销售费用", "管理费用"]',
    "公司主要从事高性能膜材料的研发、生产和销售。",
    "本报告期公司无重大诉讼、仲裁事项。",
    "流动比率是流动资产合计除以流动负债合计。",
    "要保人得在保單價值準備金範圍內申請保單借款。",
    "system user assistant 0123456789 .,:;[]{}\"' <company> <year>",
]
FEWSHOT = """
tasks:
  keywords:
    system: 找出关键词，只输出JSON字符串数组。
    turns:
      - user: "<year>年<company>的研发费用是多少元?"
        assistant: '["研发费用"]'
      - user: "<company>在<year>年的销售费用和管理费用分别是多少元?"
        assistant: '["销售费用", "管理费用"]'
  report_text:
    system: 只根据片段回答，并标明出处。
    turns:
      - user: "问题：<company>是否涉及重大诉讼？\\n片段[doc, 第4页]：本报告期公司无重大诉讼。"
        assistant: "<company>不涉及重大诉讼[doc, 第4页]。"
  open:
    system: 解释财务概念。
    turns:
      - user: "什么是流动比率？"
        assistant: "流动比率是流动资产合计除以流动负债合计。"
  rephrase:
    system: 改写答案，数字保持原样。
    turns:
      - user: "<company><year>年的研发费用是100元。"
        assistant: "<company>在<year>年的研发费用为100元。"
"""


def _tokenizer():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=SPECIAL,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(TRAINING_TEXT, trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=bpe,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        bos_token="<|endoftext|>",
        chat_template=CHAT_TEMPLATE,
    )


def _model(tokenizer):
    from transformers import Qwen2Config, Qwen2ForCausalLM

    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=1024,
        tie_word_embeddings=False,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    torch.manual_seed(0)
    return Qwen2ForCausalLM(config).eval()


# Hugging Face parameter names -> llama.cpp (GGUF) tensor names for Qwen2.
_GGUF_NAMES = {
    "model.embed_tokens.weight": "token_embd.weight",
    "model.norm.weight": "output_norm.weight",
    "lm_head.weight": "output.weight",
}
_GGUF_LAYER = {
    "input_layernorm.weight": "attn_norm.weight",
    "post_attention_layernorm.weight": "ffn_norm.weight",
    "self_attn.q_proj.weight": "attn_q.weight",
    "self_attn.q_proj.bias": "attn_q.bias",
    "self_attn.k_proj.weight": "attn_k.weight",
    "self_attn.k_proj.bias": "attn_k.bias",
    "self_attn.v_proj.weight": "attn_v.weight",
    "self_attn.v_proj.bias": "attn_v.bias",
    "self_attn.o_proj.weight": "attn_output.weight",
    "mlp.gate_proj.weight": "ffn_gate.weight",
    "mlp.up_proj.weight": "ffn_up.weight",
    "mlp.down_proj.weight": "ffn_down.weight",
}


def _write_gguf(path: Path, model, tokenizer) -> None:
    """The same model and tokenizer as one .gguf file (float32 tensors), as llama.cpp writes Qwen2."""
    import gguf

    config = model.config
    writer = gguf.GGUFWriter(str(path), "qwen2")
    writer.add_context_length(config.max_position_embeddings)
    writer.add_embedding_length(config.hidden_size)
    writer.add_feed_forward_length(config.intermediate_size)
    writer.add_block_count(config.num_hidden_layers)
    writer.add_head_count(config.num_attention_heads)
    writer.add_head_count_kv(config.num_key_value_heads)
    writer.add_rope_freq_base(config.rope_theta)
    writer.add_layer_norm_rms_eps(config.rms_norm_eps)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    state = json.loads(tokenizer.backend_tokenizer.to_str())["model"]
    vocab = sorted(tokenizer.get_vocab().items(), key=lambda kv: kv[1])
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("qwen2")
    writer.add_token_list([token for token, _ in vocab])
    writer.add_token_types(
        [gguf.TokenType.CONTROL if t in SPECIAL else gguf.TokenType.NORMAL for t, _ in vocab]
    )
    writer.add_token_merges([m if isinstance(m, str) else " ".join(m) for m in state["merges"]])
    writer.add_bos_token_id(tokenizer.bos_token_id)
    writer.add_eos_token_id(tokenizer.eos_token_id)
    writer.add_pad_token_id(tokenizer.pad_token_id)
    writer.add_chat_template(CHAT_TEMPLATE)
    for name, tensor in model.state_dict().items():
        if name.startswith("model.layers."):
            _, _, n, rest = name.split(".", 3)
            gguf_name = f"blk.{n}.{_GGUF_LAYER[rest]}"
        else:
            gguf_name = _GGUF_NAMES[name]
        writer.add_tensor(gguf_name, tensor.detach().numpy().astype("float32"))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A model folder and a few-shot file."""
    root = tmp_path_factory.mktemp("tiny-llm")
    tokenizer = _tokenizer()
    folder = root / "qwen2-tiny"
    _model(tokenizer).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    fewshot = root / "fewshot.yaml"
    fewshot.write_text(FEWSHOT, encoding="utf-8")
    return {"folder": folder, "fewshot": fewshot}


@pytest.fixture(scope="module")
def tiny_gguf(tiny):
    """The same model and tokenizer as one .gguf file (loading one needs gguf and accelerate)."""
    pytest.importorskip("gguf", reason="the llm extra is not fully installed: pip install 'finqa[llm]'")
    pytest.importorskip("accelerate", reason="the llm extra is not fully installed: pip install 'finqa[llm]'")
    from transformers import AutoTokenizer, Qwen2ForCausalLM

    path = tiny["folder"].parent / "gguf" / "qwen2-tiny-f32.gguf"
    path.parent.mkdir(exist_ok=True)
    _write_gguf(
        path, Qwen2ForCausalLM.from_pretrained(tiny["folder"]), AutoTokenizer.from_pretrained(tiny["folder"])
    )
    return path


def _settings(tiny, **changes) -> LLMSettings:
    return LLMSettings(fewshot_path=tiny["fewshot"], **{"max_new_tokens": 8, **changes})


def _analysis(text: str) -> Analysis:
    return Analysis(question=Question("q1", text), type="report_text", rule_id="test")


# ---------------------------------------------------------------- settings and loading
@pytest.mark.parametrize(
    "bad",
    [
        dict(device="gpu"),
        dict(dtype="int8"),
        dict(max_new_tokens=0),
        dict(timeout=0),
        dict(retries=-1),
        dict(context_tokens=10),
        dict(threads=-2),
        dict(backend="vllm"),
    ],
)
def test_settings_reject_bad_values(bad):
    with pytest.raises(InputError):
        LLMSettings(**bad)


def test_loading_the_same_folder_twice_gives_the_same_model(tiny):
    first = LocalLLM.load(tiny["folder"], _settings(tiny))
    assert LocalLLM.load(str(tiny["folder"]), _settings(tiny)) is first
    assert first.model.dtype == torch.float32 and first.model.device.type == "cpu"


def test_missing_model_is_one_line_naming_the_path(tmp_path):
    missing = tmp_path / "no-model"
    with pytest.raises(InputError) as caught:
        LocalLLM.load(missing)
    assert str(missing) in str(caught.value) and "\n" not in str(caught.value)


def test_corrupt_model_folder_is_one_line_naming_the_path(tiny, tmp_path):
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text('{"model_type": "qwen2", "hidden_size": ', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        LocalLLM.load(broken, _settings(tiny))
    assert str(broken) in str(caught.value) and "\n" not in str(caught.value)


def test_corrupt_gguf_file_is_one_line_naming_the_path(tiny, tiny_gguf, tmp_path):
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(tiny_gguf.read_bytes()[:5000])
    with pytest.raises(InputError) as caught:
        LocalLLM.load(broken, _settings(tiny))
    assert str(broken) in str(caught.value) and "\n" not in str(caught.value)


def test_gguf_file_loads_the_same_weights_as_the_folder(tiny, tiny_gguf):
    folder = LocalLLM.load(tiny["folder"], _settings(tiny))
    single = LocalLLM.load(tiny_gguf, _settings(tiny, backend="transformers"))
    assert single is not folder
    text = "2021年华夏银行的营业外支出是多少元?"
    assert single.tokenizer.decode(single.tokenizer(text)["input_ids"]) == text
    ids = torch.tensor([folder.tokenizer(text)["input_ids"]])
    with torch.inference_mode():
        assert torch.allclose(folder.model(ids).logits, single.model(ids).logits, atol=1e-4)
    assert single.tokenizer.chat_template == CHAT_TEMPLATE


# ---------------------------------------------------------------- chat history and generation
def test_fewshot_examples_are_alternating_turns_before_the_question(tiny):
    llm = LocalLLM.load(tiny["folder"], _settings(tiny))
    messages = llm.messages("keywords", "2021年<company>的营业外支出是多少元?")
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert messages[1]["content"] == "<year>年<company>的研发费用是多少元?"
    assert messages[2]["content"] == '["研发费用"]'
    prompt = llm.tokenizer.decode(llm.prompt_ids(messages))
    assert prompt.index('["研发费用"]') < prompt.index("营业外支出") and prompt.endswith(
        "<|im_start|>assistant\n"
    )


def test_oldest_fewshot_turns_are_dropped_when_the_prompt_is_too_long(tiny):
    llm = LocalLLM.load(tiny["folder"], _settings(tiny))
    full = llm.messages("keywords", "营业外支出")
    budget = len(llm.prompt_ids(full)) - 1
    short = LocalLLM.load(tiny["folder"], _settings(tiny, context_tokens=budget)).messages(
        "keywords", "营业外支出"
    )
    assert len(short) == len(full) - 2 and short[1:] == full[3:]


def test_generation_is_deterministic_and_bounded(tiny):
    llm = LocalLLM.load(tiny["folder"], _settings(tiny))
    messages = llm.messages("open", "什么是流动比率？")
    first, second = llm.generate(messages), llm.generate(messages)
    assert first.text == second.text and first.new_tokens == second.new_tokens
    assert 1 <= first.new_tokens <= 8 and first.stopped in ("end", "max_new_tokens")
    assert first.prompt_tokens == len(llm.prompt_ids(messages))
    assert llm.generate(messages, max_new_tokens=3).new_tokens <= 3


def test_label_log_probabilities_are_the_next_token_s_after_the_prompt(tiny):
    llm = LocalLLM.load(tiny["folder"], _settings(tiny))
    scores = llm.label_logprobs("open", "什么是流动比率？", ["1", "2"])
    assert set(scores) == {"1", "2"} and all(v < 0 for v in scores.values())
    ids = llm.prompt_ids(llm.messages("open", "什么是流动比率？"))
    with torch.inference_mode():
        expected = torch.log_softmax(llm.model(torch.tensor([ids])).logits[0, -1], dim=-1)
    assert scores["1"] == pytest.approx(float(expected[llm.runtime.encode("1")[0]]), abs=1e-5)


def test_generation_stops_at_the_timeout(tiny):
    llm = LocalLLM.load(tiny["folder"], _settings(tiny, max_new_tokens=50, timeout=1e-9))
    generation = llm.generate(llm.messages("open", "什么是流动比率？"))
    assert generation.stopped == "timeout" and generation.new_tokens == 1


def test_stats_add_up_generations(tiny):
    llm = LocalLLM.load(tiny["folder"], _settings(tiny, max_new_tokens=5))
    before = llm.stats.new_tokens, llm.stats.calls
    generation = llm.generate(llm.messages("open", "什么是营业外支出？"))
    assert (llm.stats.new_tokens, llm.stats.calls) == (before[0] + generation.new_tokens, before[1] + 1)


def test_unparsable_json_is_retried_then_falls_back(tiny):
    llm = LocalLLM.load(tiny["folder"], _settings(tiny, retries=2))
    calls = llm.stats.calls
    reply = llm.chat_json(
        "keywords", "营业外支出", check=lambda v: "" if v == ["never"] else "wrong", fallback=[]
    )
    assert reply.ok is False and reply.value == [] and reply.attempts == 3 and reply.error
    assert llm.stats.calls == calls + 3


def test_keyword_fallback_returns_only_words_of_the_question(tiny):
    llm = LocalLLM.load(tiny["folder"], _settings(tiny, max_new_tokens=16))
    question = "2021年华夏银行的营业外支出是多少元?"
    words = llm.extract_keywords(question, companies=["华夏银行"])
    assert isinstance(words, list) and all(w in question for w in words)


def test_the_analyzer_asks_the_model_when_the_rules_find_no_key_word(tiny):
    llm = LocalLLM.load(tiny["folder"], _settings(tiny, max_new_tokens=16))
    analyzer = QuestionAnalyzer.from_reports(
        [ReportYear("江苏综艺股份有限公司", 2020, "综艺股份", "600770")], llm=llm
    )
    analysis = analyzer.run(Question("1", "2020年综艺股份的"))
    assert any(t.startswith("keywords: LLM fallback -> ") for t in analysis.trace), analysis.trace
    assert all(w in analysis.question.text for w in analysis.keywords)


def test_answer_from_passages_refuses_numbers_not_in_the_passages_or_cites(tiny):
    llm = LocalLLM.load(tiny["folder"], _settings(tiny, max_new_tokens=12))
    chunk = Chunk("report/1#t0", "report/1", "本报告期公司无重大诉讼、仲裁事项。", page_start=41, page_end=41)
    written = llm.answer_from_passages(_analysis("公司是否涉及重大诉讼？"), [Hit(chunk, 3.0)])
    # Whatever the noise model says: rejected with a reason, or one sentence that cites the passage and quotes
    # only its numbers.
    assert written.rejected or (
        "[report/1, 第41页]" in written.text
        and written.text == first_sentence(written.text)
        and numbers_within(written.text, "[report/1, 第41页]" + chunk.text)
    )


def test_a_reply_the_clock_cut_off_mid_sentence_is_rejected(tiny):
    # One token, then the timeout: half a sentence (资料中未…) is no answer, whatever its words.
    llm = LocalLLM.load(tiny["folder"], _settings(tiny, max_new_tokens=50, timeout=1e-9))
    chunk = Chunk("report/1#t0", "report/1", "本报告期公司无重大诉讼、仲裁事项。", page_start=41, page_end=41)
    written = llm.answer_from_passages(_analysis("公司是否涉及重大诉讼？"), [Hit(chunk, 3.0)])
    assert written.rejected
    assert not written.text or "cut off (timeout)" in written.rejected


def test_a_model_sentence_with_a_number_or_name_not_in_the_evidence_is_rejected():
    evidence = "续聘天健会计师事务所（特殊普通合伙）为公司2019年度审计机构。每10股派发现金红利1.88元（含税）"
    assert unsupported("公司聘请天健会计师事务所，每10股派1.88元。", evidence) == ""
    assert unsupported("公司每10股派发现金红利2元。", evidence) == "number 2 is not in the evidence"
    assert (
        unsupported("审计机构为致同会计师事务所。", evidence)
        == "name 致同会计师事务所 is not in the evidence"
    )
    assert unsupported("本公司及其子公司无重大诉讼。", evidence) == ""  # references, not names


def test_rephrase_keeps_the_template_unless_the_numbers_agree(tiny):
    llm = LocalLLM.load(tiny["folder"], _settings(tiny))
    template = "华夏银行2021年的营业外支出是12,345.67元。"
    reply = llm.rephrase(template, "12345.67元")
    assert reply == template or rephrase_keeps_numbers(reply, template, "12345.67元")


def test_text_route_with_the_model_answers_from_the_passages_or_falls_back(tiny, tmp_path):
    from qa.answers import AnswerTemplates
    from qa.text.answer import TextAnswerer
    from search.embedded import EmbeddedIndex
    from search.settings import IndexSettings
    from search.tokenize import Tokenizer

    llm = LocalLLM.load(tiny["folder"], _settings(tiny, max_new_tokens=12))
    with EmbeddedIndex(IndexSettings(tmp_path / "index"), Tokenizer()) as index:
        index.add(
            [
                Chunk(
                    "report/1#t0", "report/1", "本报告期公司无重大诉讼、仲裁事项。", ("十、重大诉讼",), 41, 41
                )
            ]
        )
        index.commit()
        answerer = TextAnswerer(index, index.tokenizer, AnswerTemplates.load(), llm=llm)
        calls = llm.stats.calls
        answer = answerer.run(_analysis("公司是否涉及重大诉讼？"))
    assert llm.stats.calls == calls + 1 and answer.documents == ["report/1"]
    if answer.route == "report_text:llm":
        assert "[report/1, 第41页]" in answer.answer
    else:
        assert (
            answer.route == "report_text:extractive (model sentence rejected)" and "重大诉讼" in answer.answer
        )
        assert answer.trace[0].startswith("model sentence rejected: ")


def test_open_question_is_answered_by_the_model(tiny, tmp_path):
    from qa.answers import AnswerTemplates
    from qa.text.answer import TextAnswerer
    from search.embedded import EmbeddedIndex
    from search.settings import IndexSettings
    from search.tokenize import Tokenizer

    llm = LocalLLM.load(tiny["folder"], _settings(tiny, max_new_tokens=6))
    with EmbeddedIndex(IndexSettings(tmp_path / "index"), Tokenizer()) as index:
        answerer = TextAnswerer(index, index.tokenizer, AnswerTemplates.load(), llm=llm)
        analysis = Analysis(question=Question("q", "什么是流动比率？"), type="open", rule_id="test")
        answer = answerer.run(analysis)
    assert answer.route == "open:llm" and answer.answer == llm.chat("open", "什么是流动比率？")


# ---------------------------------------------------------------- the llama.cpp backend (.gguf quantised on the CPU)
@pytest.fixture(scope="module")
def llama_gguf(tiny_gguf):
    pytest.importorskip("llama_cpp", reason="the llama extra is not installed: pip install 'finqa[llama]'")
    return tiny_gguf


def test_a_gguf_file_runs_on_llama_cpp_and_a_folder_on_transformers(tiny, llama_gguf):
    assert LocalLLM.load(llama_gguf, _settings(tiny)).runtime.name == "llama.cpp"
    assert LocalLLM.load(tiny["folder"], _settings(tiny)).runtime.name == "transformers"
    with pytest.raises(InputError) as caught:
        LocalLLM.load(tiny["folder"], _settings(tiny, backend="llama.cpp"))
    assert str(tiny["folder"]) in str(caught.value)


def test_llama_cpp_reads_the_same_prompt_and_replies_as_transformers(tiny, llama_gguf):
    llama = LocalLLM.load(llama_gguf, _settings(tiny))
    torch_run = LocalLLM.load(llama_gguf, _settings(tiny, backend="transformers"))
    messages = llama.messages("keywords", "2021年<company>的营业外支出是多少元?")
    assert llama.prompt_ids(messages) == torch_run.prompt_ids(
        messages
    )  # the file's chat template, rendered alike
    text = "2021年华夏银行的营业外支出是多少元?"
    assert llama.runtime.decode(llama.runtime.encode(text)) == text
    # Same float32 weights, greedy decoding: the same tokens.
    first, other = llama.generate(messages), torch_run.generate(messages)
    assert (first.text, first.new_tokens, first.stopped) == (other.text, other.new_tokens, other.stopped)


def test_llama_cpp_generation_is_deterministic_bounded_and_timed(tiny, llama_gguf):
    llm = LocalLLM.load(llama_gguf, _settings(tiny))
    messages = llm.messages("open", "什么是流动比率？")
    first, second = llm.generate(messages), llm.generate(messages)
    assert (
        first.text == second.text
        and 1 <= first.new_tokens <= 8
        and first.prompt_tokens == len(llm.prompt_ids(messages))
    )
    assert llm.generate(messages, max_new_tokens=3).new_tokens <= 3
    slow = LocalLLM.load(llama_gguf, _settings(tiny, max_new_tokens=50, timeout=1e-9)).generate(messages)
    assert slow.stopped == "timeout" and slow.new_tokens == 1


def test_llama_cpp_answers_through_the_text_route(tiny, llama_gguf):
    llm = LocalLLM.load(llama_gguf, _settings(tiny, max_new_tokens=12))
    chunk = Chunk("report/1#t0", "report/1", "本报告期公司无重大诉讼、仲裁事项。", page_start=41, page_end=41)
    written = llm.answer_from_passages(_analysis("公司是否涉及重大诉讼？"), [Hit(chunk, 3.0)])
    assert written.rejected or (
        "[report/1, 第41页]" in written.text
        and numbers_within(written.text, "[report/1, 第41页]" + chunk.text)
    )
    words = llm.extract_keywords("2021年华夏银行的营业外支出是多少元?", companies=["华夏银行"])
    assert all(w in "2021年华夏银行的营业外支出是多少元?" for w in words)


def test_llama_cpp_scores_labels_as_transformers_does(tiny, llama_gguf):
    llama = LocalLLM.load(llama_gguf, _settings(tiny))
    torch_run = LocalLLM.load(llama_gguf, _settings(tiny, backend="transformers"))
    first = llama.label_logprobs("open", "什么是流动比率？", ["1", "2", "3"])
    other = torch_run.label_logprobs("open", "什么是流动比率？", ["1", "2", "3"])
    assert first == pytest.approx(other, abs=1e-3)


def test_llama_cpp_label_scores_do_not_depend_on_what_it_read_before(tiny, llama_gguf):
    # prompts of one task share their few-shot turns, which llama.cpp keeps evaluated between calls
    llama = LocalLLM.load(llama_gguf, _settings(tiny))
    torch_run = LocalLLM.load(llama_gguf, _settings(tiny, backend="transformers"))
    labels = ["1", "2", "3"]
    llama.label_logprobs("open", "什么是资产负债率？", labels)
    llama.generate(llama.messages("open", "什么是毛利率？"), max_new_tokens=3)
    after = llama.label_logprobs("open", "什么是流动比率？", labels)
    again = llama.label_logprobs("open", "什么是流动比率？", labels)  # the whole prompt read before
    expected = torch_run.label_logprobs("open", "什么是流动比率？", labels)
    assert after == pytest.approx(expected, abs=1e-3) and again == pytest.approx(expected, abs=1e-3)


def test_a_corrupt_gguf_on_llama_cpp_is_one_line_naming_the_path(tiny, llama_gguf, tmp_path):
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(llama_gguf.read_bytes()[:5000])
    with pytest.raises(InputError) as caught:
        LocalLLM.load(broken, _settings(tiny, backend="llama.cpp"))
    assert str(broken) in str(caught.value) and "\n" not in str(caught.value)


# ---------------------------------------------------------------- checks on replies
def test_json_reply_is_parsed_strictly():
    assert parse_json_reply('["研发费用"]') == (["研发费用"], "")
    assert parse_json_reply('```json\n["a", "b"]\n```') == (["a", "b"], "")
    assert parse_json_reply('关键词：["研发费用"]')[1].startswith("not JSON")
    assert parse_json_reply('["a"] and more')[1].startswith("not JSON")
    assert parse_json_reply("  ")[1] == "empty reply"


def test_numbers_are_read_with_separators_and_full_width_digits():
    assert numbers("营业收入1,241.5亿元，增长１６.５%，-3") == [
        Decimal("1241.5"),
        Decimal("16.5"),
        Decimal("-3"),
    ]


def test_rephrase_check_needs_the_value_and_no_new_number():
    template = "2021年营业外支出是12,345.67元。"
    assert rephrase_keeps_numbers("营业外支出在2021年为12345.67元。", template, "12345.67元")
    assert not rephrase_keeps_numbers("营业外支出在2021年为12345.68元。", template, "12345.67元")
    assert not rephrase_keeps_numbers("2021年的营业外支出约为1.2万元。", template, "12345.67元")
    assert not rephrase_keeps_numbers("2020年营业外支出是12345.67元。", template, "12345.67元")
