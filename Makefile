# Two commands are the contract: `make run` and `make test`. Both share one venv,
# re-installed only when pyproject.toml changes (the stamp file).
PYTHON ?= python3.11
# llama.cpp compiles from source. A native build (-march=native) picked up AMX/AVX-512 paths
# that crash on prompt batches inside this VM, so build the portable AVX2 set instead;
# override LLAMA_CMAKE_ARGS for other CPUs.
LLAMA_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
	-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench train train-acts train-stance train-pressure train-start-trust train-time-roles train-reference train-privacy train-evidence export-encoder lint fix clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip
	# The CPU build of torch first: resolved later through sentence-transformers it
	# would pull several GB of CUDA packages.
	$(BIN)/pip install "torch==2.13.0"
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip install "llama-cpp-python==0.3.36"
	$(BIN)/pip install -e ".[test]"
	# rapidocr pulls the desktop build of OpenCV, which needs the system's libGL; the headless
	# build of the same version overwrites its files so OCR also works where libGL is missing.
	$(BIN)/pip install --no-deps --force-reinstall \
		"opencv-python-headless==$$($(BIN)/pip show opencv-python | sed -n 's/^Version: //p')"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python run.py serve

test: $(STAMP)
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python -m bench

# Eval-gated fine-tuning (<= 90 min on 2 cores): a new adapter replaces training/adapter/
# only if it clears the gate; training/build/ keeps the data, report and summary.
train: $(STAMP)
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python -m bench.train --table

# Re-export recall's encoder (memory/models/) from the installed all-MiniLM-L6-v2 with torch;
# the runtime reads the ONNX file only.
export-encoder: $(STAMP)
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python -m training.export_encoder

# Train the learned PERSON detector (privacy/models/; about 75 minutes on 2 cores) on WNUT-17
# train, the third-party corpora training/ner_sources.py converts into ../shared/benchmarks/ner
# (run `python -m training.ner_sources` first; it names the snapshots to fetch) and generated
# lines, choosing epoch and threshold on a held-out sixth of them; needs the train extra. The
# runtime reads the ONNX file. The evidence weights are fitted again after it (train-evidence).
train-privacy: $(STAMP)
	HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(BIN)/python -m training.person_detector
	$(BIN)/python -m training.evidence_weights

# Fit the act model (understanding/models/; about 10 minutes on 2 cores) on the third-party
# dialogue corpora that training/act_sources.py converts into ../shared/benchmarks/acts and the
# generated scenarios in six languages. Everything is chosen by grouped cross-validation on
# training data; the sealed sets are scored once, after, into the manifest.
train-acts: $(STAMP)
	$(BIN)/python -m training.act_model

# Fit the reply-stance head (understanding/models/stance.*; about a minute): does the user's
# reply in a thread agree to the plan just proposed? Same corpora and features as train-acts;
# regularisation and the cut are chosen out-of-fold, the sealed replies scored once, after.
train-stance: $(STAMP)
	$(BIN)/python -m training.reply_stance

# Fit the pressure head (understanding/models/pressure.*; about 5 minutes): does a message of
# another's push a time on the user (a booking made for them, "no need to reply", a threat)? On
# the generated templates, the SMS Spam Collection and Enron inbox paragraphs that
# training/pressure_sources.py converts into ../shared/benchmarks/pressure; the cut is chosen
# out-of-fold, the sealed split scored once, after.
train-pressure: $(STAMP)
	$(BIN)/python -m training.pressure_sources --out ../shared/benchmarks/pressure
	$(BIN)/python -m training.pressure_head

# Fit the start-trust head (understanding/models/start_trust.*; about 3 minutes): is a start read
# from pasted text a plan of the reader's, or a deadline, a listing, someone else's time? Real
# Enron mail (training/data/emails) and the open halves of the blind threads and agent cases;
# regularisation and the cut chosen out of fold. Run it again after a change to the linker.
train-start-trust: $(STAMP)
	$(BIN)/python -m training.start_trust

# Fit the person-evidence weights (privacy/conf/evidence.toml) towards their hand-set priors on
# the detector's held-out training data and half of Veil's examples, the threshold chosen by
# 4-fold cross-validation; sealed figures go to privacy/conf/evidence.json (about 5 minutes).
# Fit the time-role head (understanding/models/time_roles.*; about 3 minutes): is each clock of a
# message offered, turned down or something else? Generated messages in six languages, the refusal
# phrases of lang/data/acts.toml and SGD's time slots; the cut chosen out-of-fold, sealed sets after.
train-time-roles: $(STAMP)
	$(BIN)/python -m training.time_roles

# Record and fit which of the chat's events a follow-up is about (understanding/models/
# reference.json; about 3 minutes): the dev follow-up conversations and generated programs are
# typed into Veil, each (request, event) pair gets agent/reference.py's named features, and the
# weights and cut are chosen out-of-fold by conversation. Recorded and fitted; not yet switched in.
train-reference: $(STAMP)
	$(BIN)/python -m training.event_reference

train-evidence: $(STAMP)
	$(BIN)/python -m training.evidence_weights

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

fix: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV)
