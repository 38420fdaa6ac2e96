"""Warming a process up: what the first analysis of a session needs, done ahead of it.

The first analysis in a process costs more than its pack: the rule modules load what
they use on first call (the card derivation, quick-fix payloads), the schema
validators of the pack's version are compiled, the template scanner and the
summaries build their tables. A server that has just started (the language server, the
MCP server) calls ``warm_up()`` in a background thread while its client is still
connecting, so that the first pack the user opens pays for itself only. The pack
analysed here touches every part of the pack model: prompts with variables, tools,
validators, evals and overrides, fragments, a workflow and agents; a YAML and a JSON
copy of it, the two syntaxes packs come in.
"""

from __future__ import annotations

import json
import logging

from pack_lsp.core.checks.analysis import Analysis, analyze
from pack_lsp.core.syntax.yamltree import parse, to_data

log = logging.getLogger(__name__)

#: A small valid pack using every section of the model (the warm-up's input).
WARM_PACK = """\
id: warm-up
name: Warm-up
version: 1.0.0
description: A pack that uses every section, analysed when a server starts.
template_engine:
  version: v1
  syntax: "{{variable}}"
  features: [basic_substitution, fragments]
fragments:
  tone: Be brief and precise.
prompts:
  triage:
    id: triage
    name: Triage
    version: 1.0.0
    description: Routes each request to the right specialist.
    system_template: |
      You route requests for {{company}} on {{channel}}. {{fragments.tone}}
    variables:
      - name: company
        type: string
        required: true
        description: The company served
        validation: {min_length: 1}
      - {name: channel, type: string, required: false, default: chat}
    tools: [lookup_invoice, billing]
    tool_policy: {tool_choice: auto, max_rounds: 4}
    parameters: {temperature: 0.2, max_tokens: 800}
    validators:
      - type: max_length
        enabled: true
        params: {max_characters: 800}
    model_overrides:
      gpt-4o:
        system_template_suffix: Be concise.
    evals:
      - id: polite
        description: Checks the tone of replies
        type: regex
        trigger: every_turn
        params:
          patterns: [thank you]
        metric: {name: promptpack_polite, type: boolean}
  billing:
    id: billing
    name: Billing
    version: 1.0.0
    description: Answers questions about invoices.
    system_template: |
      You handle billing questions for {{company}} on {{channel}}. {{fragments.tone}}
    variables:
      - {name: company, type: string, required: true}
      - {name: channel, type: string, required: false, default: chat}
    tools: [lookup_invoice]
tools:
  lookup_invoice:
    name: lookup_invoice
    description: Fetch an invoice by its number.
    parameters:
      type: object
      properties:
        number: {type: string, description: The invoice number}
      required: [number]
workflow:
  version: 1
  entry: intake
  states:
    intake:
      prompt_task: triage
      on_event: {Billing: invoices}
    invoices:
      prompt_task: billing
      terminal: true
agents:
  entry: triage
  members:
    triage: {tags: [router], description: Routes requests}
    billing: {tags: [billing], input_modes: [text/plain], output_modes: [text/plain]}
"""


def warm_up() -> list[Analysis]:
    """Analyse the warm-up pack as YAML and as JSON; their analyses (for a test)."""
    found = [analyze(WARM_PACK, path="warm-up.promptpack.yaml")]
    data = to_data(parse(WARM_PACK).root)
    found.append(analyze(json.dumps(data, indent=2), path="warm-up.promptpack.json"))
    return found
