"""Property tests (Hypothesis) of the Python edge's readers: whatever the input, they give
a value or an error of the edge's own kind (exit 2 naming the file and the path), never
another exception (a traceback, exit 1)."""

import copy
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nvmesim
from nvmesim._files import read_json
from nvmesim.ab.matrix import MatrixError, load_matrix
from nvmesim.compare.errors import CompareError
from nvmesim.compare.measurement import measurement_of

SETTINGS = settings(max_examples=200, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])

scalars = (st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12))
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=25)


class Bad(Exception):
    pass


@SETTINGS
@given(st.binary(max_size=300))
def test_read_json_takes_any_bytes(data):
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "f.json"
        f.write_bytes(data)
        try:
            read_json(f, Bad)
        except Bad as exc:
            assert str(exc)


def _leaves(doc, path=()):
    """Every (path, value) in a document, containers included."""
    yield path, doc
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _leaves(v, path + (i,))


def _replace(doc, path, value):
    doc = copy.deepcopy(doc)
    if not path:
        return value
    node = doc
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value
    return doc


@pytest.fixture(scope="module")
def results_doc():
    return nvmesim.run("default", duration_us=1000, warmup_us=200).data


@SETTINGS
@given(json_values)
def test_compare_reads_any_document_or_says_where(doc):
    try:
        measurement_of(doc, "m.json")
    except CompareError as exc:
        assert "m.json" in str(exc)


@SETTINGS
@given(index=st.integers(min_value=0), value=json_values)
def test_compare_reads_a_results_file_with_any_one_value_changed(results_doc, index, value):
    leaves = [p for p, _ in _leaves(results_doc) if len(p) <= 4]
    doc = _replace(results_doc, leaves[index % len(leaves)], value)
    try:
        measurement_of(doc, "m.json")
    except CompareError as exc:
        assert "m.json" in str(exc)


MATRIX = json.loads((Path(__file__).resolve().parents[2] / "scenarios" / "matrices" / "policy_a_eval.json").read_text())


@SETTINGS
@given(index=st.integers(min_value=0), value=json_values)
def test_ab_reads_its_matrix_with_any_one_value_changed(index, value):
    leaves = [p for p, _ in _leaves(MATRIX)]
    doc = _replace(MATRIX, leaves[index % len(leaves)], value)
    base_dir = Path(__file__).resolve().parents[2] / "scenarios" / "matrices"
    if isinstance(doc, dict) and isinstance(doc.get("base"), str):
        doc["base"] = str(base_dir / doc["base"])
    with tempfile.TemporaryDirectory() as d:  # a file, as `nvmesim ab` reads it
        f = Path(d) / "m.json"
        f.write_text(json.dumps(doc))
        try:
            load_matrix(f, validate=False)
        except MatrixError as exc:
            assert exc.message
