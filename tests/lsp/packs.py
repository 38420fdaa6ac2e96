"""Pack texts shared by the end-to-end tests."""

from __future__ import annotations

PACK = """\
id: support-pack
name: "Support 😀 Pack"
version: 1.0.0
description: Customer support agents
template_engine:
  version: v1
  syntax: "{{variable}}"
fragments:
  greeting: "Hello {{user_name}}!"
tools:
  lookup_order:
    name: lookup_order
    description: Find an order by its number
    parameters:
      type: object
      properties:
        order_id: {type: string}
  refund:
    name: refund
    description: Refund an order
prompts:
  triage:
    id: triage
    name: Triage
    version: 1.0.0
    description: Routes each request
    system_template: "Héllo 😀 {{user_name}}, {{fragments.greeting}}"
    variables:
      - name: user_name
        type: string
        required: true
    tools:
      - lookup_order
  billing:
    id: billing
    name: Billing
    version: 2.0.0
    description: Handles invoices
    system_template: Bill {{user_name}}
    variables:
      - name: user_name
        type: string
    tools: [refund]
"""
