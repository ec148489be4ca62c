/**
 * The form primitives' accessibility wiring, read from their server-rendered
 * markup (the unit project runs in Node, without a DOM): a label names its
 * control, an error marks the control invalid and describes it, and a failed
 * action's error is announced.
 */
import { type ComponentProps, createElement as h, type ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { FormError } from '@/components/ui/form-error';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { Textarea } from '@/components/ui/textarea';

type FieldProps = ComponentProps<typeof Field>;
/** createElement wants a Field's children among its props' type, Biome wants them as an argument: both, here. */
const field = (props: Omit<FieldProps, 'children'>, control: ReactElement) => h(Field, props as FieldProps, control);

function parse(markup: string) {
  const attribute = (tag: string, name: string) => new RegExp(`<${tag}\\b[^>]*\\s${name}="([^"]*)"`).exec(markup)?.[1];
  return { attribute };
}

describe('Field', () => {
  it('names its control by its label through a generated id', () => {
    const markup = renderToStaticMarkup(field({ label: 'Agent' }, h(Input, { name: 'agent' })));
    const { attribute } = parse(markup);
    const id = attribute('input', 'id');
    expect(id).toBeTruthy();
    expect(attribute('label', 'for')).toBe(id);
    expect(markup).toContain('>Agent</label>');
    expect(attribute('input', 'aria-invalid')).toBeUndefined();
  });

  it('keeps an id it is given', () => {
    const markup = renderToStaticMarkup(field({ label: 'Note', id: 'note-7', hideLabel: true }, h(Input)));
    const { attribute } = parse(markup);
    expect(attribute('input', 'id')).toBe('note-7');
    expect(attribute('label', 'for')).toBe('note-7');
    expect(attribute('label', 'class')).toBe('sr-only');
  });

  it('marks its control invalid and described by the hint and the error', () => {
    const markup = renderToStaticMarkup(
      field(
        { label: 'Window', id: 'pool-window', hint: '10 to 86,400', error: ['too small', 'not whole'] },
        h(Input, { 'aria-describedby': 'page-help' }),
      ),
    );
    const { attribute } = parse(markup);
    expect(attribute('input', 'aria-invalid')).toBe('true');
    expect(attribute('input', 'aria-describedby')).toBe('page-help pool-window-hint pool-window-error');
    expect(markup).toContain('id="pool-window-hint"');
    expect(markup).toMatch(/id="pool-window-error"[^>]*>too small; not whole</);
  });

  it('wires a select and a textarea the same way', () => {
    for (const control of [Select, Textarea] as const) {
      const markup = renderToStaticMarkup(
        field({ label: 'Role', id: 'role', error: 'unknown role' }, h(control as typeof Select)),
      );
      expect(markup).toMatch(/<(select|textarea)\b[^>]*id="role"/);
      expect(markup).toMatch(/<(select|textarea)\b[^>]*aria-invalid="true"/);
      expect(markup).toMatch(/<(select|textarea)\b[^>]*aria-describedby="role-error"/);
    }
  });
});

describe('a control alone', () => {
  it('is invalid and described by an error shown elsewhere', () => {
    const { attribute } = parse(renderToStaticMarkup(h(Input, { id: 'reason', errorId: 'reason-error' })));
    expect(attribute('input', 'aria-invalid')).toBe('true');
    expect(attribute('input', 'aria-describedby')).toBe('reason-error');
  });
});

describe('FormError', () => {
  it('says nothing before an answer or after a success', () => {
    expect(renderToStaticMarkup(h(FormError, { result: undefined }))).toBe('');
    expect(renderToStaticMarkup(h(FormError, { result: { ok: true } }))).toBe('');
  });

  it("announces a failed action's message as an alert, with its field errors when asked", () => {
    const markup = renderToStaticMarkup(
      h(FormError, {
        result: { ok: false, message: 'Check the fields.', fieldErrors: { agent: ['not a name'] } },
        fieldLabels: { agent: 'Agent' },
      }),
    );
    expect(markup).toMatch(/^<div role="alert"/);
    expect(markup).toContain('<p>Check the fields.</p>');
    expect(markup).toContain('<li>Agent: not a name</li>');
  });
});

describe('Button', () => {
  it('is a plain button unless told to submit, and busy while pending', () => {
    expect(renderToStaticMarkup(h(Button, null, 'Go'))).toMatch(/^<button type="button"/);
    const pending = renderToStaticMarkup(
      h(
        Button,
        {
          type: 'submit',
          pending: true,
          pendingLabel: 'Saving…',
          ...{ 'data-testid': 'save' },
        },
        'Save',
      ),
    );
    expect(pending).toContain('type="submit"');
    expect(pending).toContain('disabled=""');
    expect(pending).toContain('aria-busy="true"');
    expect(pending).toContain('data-testid="save"');
    expect(pending).toContain('>Saving…</button>');
  });
});
