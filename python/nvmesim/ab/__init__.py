"""Paired A/B evaluation of a completion policy over a matrix of cases (``nvmesim ab``).

``nvmesim.ab(matrix, out)`` runs both arms of every case and seed (simulator: serial,
local processes or a Dask cluster; or a real drive through nvmesim-hw), keeps every run
in ``out/runs.csv`` as it finishes (a killed run resumes from there), classifies each
case (improvement, regression, no change, too variable) and writes the report.
``python3 -m nvmesim.ab`` is the command line. See docs/ab.md.

Modules: ``matrix`` (the spec and its cases), ``verdict`` (the statistics), ``store``
(the run table), ``runner`` / ``hw`` (the two ways to run), ``report``, ``league``, ``cli``.
"""

from dataclasses import dataclass
from pathlib import Path

from .league import LeagueResult, league
from .matrix import ARMS, Matrix, MatrixError, load_matrix
from .verdict import VERDICTS, Limits, verdict

__all__ = ["ARMS", "ABResult", "LeagueResult", "Limits", "Matrix", "MatrixError", "VERDICTS",
           "ab", "league", "load_matrix", "verdict"]


@dataclass
class ABResult:
    """What :func:`ab` returns.

    Attributes:
        cases: DataFrame, one row per case (verdict, change, interval, p, CV, p99, IRQs/IO).
        runs: DataFrame, one row per run (the run table, ``runs.csv``).
        summary: the report's summary sentences.
        directory: where runs.csv, cases.csv, report.md, report.html and the plots are.
        interrupted: True when Ctrl-C stopped the runs; run again to resume (no report).
    """

    cases: object
    runs: object
    summary: list
    directory: Path
    interrupted: bool


def default_out(matrix):
    """The output directory when none is given: ``ab-<matrix file stem>``."""
    stem = Path(matrix).stem if not isinstance(matrix, dict) else "matrix"
    return Path(f"ab-{stem}")


def ab(matrix, out=None, workers=None, client=None, duration_us=None, warmup_us=None,
       seeds=None, limits=None, progress=True, hw_device=None, hw_cli=None, candidate=None):
    """Runs an A/B matrix (what is not on disk yet) and writes its report.

    Args:
        matrix: a matrix JSON file (scenarios/matrices/matrix.schema.json) or dict.
        out: output directory (default ``ab-<matrix stem>``). Runs already in
            ``out/runs.csv`` are not run again: a killed run resumes.
        workers: local worker processes for the simulator (None or 1: this process).
        client: a ``dask.distributed.Client``: the runs go to its cluster.
        duration_us, warmup_us, seeds: win over the matrix's.
        limits: :class:`Limits` of the verdicts (default: p < 0.01, 95% CI outside
            ±max(2%, 2 x baseline CV), baseline CV above 5%: too variable).
        progress: show a progress bar.
        hw_device: PCI address of a drive bound to vfio-pci: run the arms on it with
            nvmesim-hw (A B A B per case) instead of the simulator.
        hw_cli: the nvmesim-hw executable (default $NVMESIM_HW_CLI, else on PATH).
        candidate: ``{"name", "params"}`` in place of the matrix's candidate. Several
            candidates are a league: :func:`league`.

    Returns:
        ABResult. Raises MatrixError for a bad matrix (with its JSON path).
    """
    from .report import case_table, write_report
    from .store import RunStore

    if hw_device is not None and (workers not in (None, 1) or client is not None):
        raise ValueError("a hw run goes to one drive: no workers= or client=")
    if workers is not None and client is not None:
        raise ValueError("give workers= or client=, not both")
    limits = limits or Limits()
    spec = load_matrix(matrix, duration_us=duration_us, warmup_us=warmup_us, seeds=seeds,
                       candidate=candidate)
    directory = Path(out) if out is not None else default_out(matrix)
    store = RunStore(directory, spec, kind="sim" if hw_device is None else "hw")
    if hw_device is None:
        from .runner import run_simulated

        interrupted = run_simulated(spec, store, workers=workers, client=client,
                                    progress=progress)
    else:
        from .hw import run_hw

        interrupted = run_hw(spec, store, hw_device, cli=hw_cli, progress=progress)
    runs = store.frame()
    if interrupted:
        return ABResult(cases=None, runs=runs, summary=[], directory=directory,
                        interrupted=True)
    store.finish()
    cases = case_table(runs, spec, limits)
    summary = write_report(directory, cases, spec, limits,
                           runner="simulator" if hw_device is None else f"nvmesim-hw on {hw_device}")
    return ABResult(cases=cases, runs=runs, summary=summary, directory=directory,
                    interrupted=False)
