"""Private surveys: the respondent's side of every mechanism, and its server.

Build a :class:`Questionnaire` from per-question fitted privatizers; each
respondent gets one self-contained page whose script privatizes the answers
on the device (exact samplers fed by ``crypto.getRandomValues``) and sends
only the privatized answers.  Interval questions show anchors the collector
drew for that respondent.  The collection server (``python -m skprivate
survey serve``; :func:`create_app`, :func:`serve`) checks every answer
against its mechanism's output space and stores it with SQLAlchemy;
:func:`read_responses` gives the learners their input, and
:func:`survey_status` the operator a running estimate of every question.

The server needs the ``survey`` extra (Starlette, uvicorn, SQLAlchemy):
``pip install "skprivate[survey]"``; building questionnaires and pages does
not.
"""

from ._client import fetch_questions, submit_answers
from ._collect import issue_tokens, read_responses, read_waves
from ._page_audit import audit_page
from ._questionnaire import GUARANTEE, Question, Questionnaire
from ._server import background_server, create_app, serve
from ._spec import AnswerError, mechanism_spec
from ._status import QuestionStatus, SurveyStatus, survey_status
from ._waves import SimulatedDevice

__all__ = [
    "GUARANTEE",
    "AnswerError",
    "Question",
    "QuestionStatus",
    "Questionnaire",
    "SimulatedDevice",
    "SurveyStatus",
    "audit_page",
    "background_server",
    "create_app",
    "fetch_questions",
    "issue_tokens",
    "mechanism_spec",
    "read_responses",
    "read_waves",
    "serve",
    "submit_answers",
    "survey_status",
]
