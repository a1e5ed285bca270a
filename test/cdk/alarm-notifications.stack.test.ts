import { readFileSync } from 'node:fs';
import { RUNBOOK_DOC } from '../../lib/constructs/alarms.js';
import { ALARM_SUBSCRIBERS_CONTEXT } from './shared-stacks.js';
import { resourceId, resourcesOfType, synthStack, type CfnResource } from './stack-fixture.js';

const OPERATIONS = readFileSync(new URL(`../../${RUNBOOK_DOC}`, import.meta.url), 'utf8');

/** A heading's anchor as GitHub makes it: lowercase, punctuation dropped, spaces to hyphens. */
const anchorOf = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** The anchors of docs/operations.md's headings. */
const ANCHORS = new Set([...OPERATIONS.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1]!)));

const RUNBOOK_LINK = new RegExp(`Runbook: ${RUNBOOK_DOC.replace('.', '\\.')}#([a-z0-9-]+)$`);

const alarmsOf = (stage: string, context?: Record<string, string>): CfnResource[] =>
  Object.values(resourcesOfType(synthStack({ stage, ...(context ? { context } : {}) }).template, 'AWS::CloudWatch::Alarm'));

describe.each(['dev', 'prod'])('the %s stage: every alarm reaches someone', (stage) => {
  const alarms = alarmsOf(stage);

  it('points every alarm at a runbook entry docs/operations.md has', () => {
    // Act
    const withoutEntry = alarms.flatMap((alarm) => {
      const anchor = RUNBOOK_LINK.exec(String(alarm.Properties.AlarmDescription))?.[1];
      return anchor !== undefined && ANCHORS.has(anchor) ? [] : [`${alarm.Properties.AlarmName}: ${anchor ?? 'no runbook link'}`];
    });

    // Assess
    expect(alarms.length).toBeGreaterThan(100);
    expect(withoutEntry).toEqual([]);
  });

  it("lists every alarm in docs/operations.md's alarm table, by its name or its family's", () => {
    // Act: a route's or function's alarms are listed as `<Route>Errors` and `<Route>Throttles`.
    const table = OPERATIONS.slice(OPERATIONS.indexOf('## Alarms'), OPERATIONS.indexOf('## Runbook'));
    const listed = (id: string) => table.includes(`\`${id}\``) || /(Errors|Throttles)$/.test(id);
    const missing = alarms.map((alarm) => String(alarm.Properties.AlarmName).replace(`repricer-${stage}-`, '')).filter((id) => !listed(id));

    // Assess
    expect(missing).toEqual([]);
  });

  it('notifies the stage topic when an alarm fires and when it is OK again', () => {
    // Arrange
    const { template } = synthStack({ stage });
    const topic = resourceId(template, 'AWS::SNS::Topic', 'AlarmsTopic');

    // Act
    const notNotifying = alarms.filter(
      (alarm) =>
        JSON.stringify(alarm.Properties.AlarmActions) !== JSON.stringify([{ Ref: topic }]) ||
        JSON.stringify(alarm.Properties.OKActions) !== JSON.stringify([{ Ref: topic }]),
    );

    // Assess
    expect(notNotifying.map((alarm) => alarm.Properties.AlarmName)).toEqual([]);
    expect(resourcesOfType(template, 'AWS::SNS::Topic')[topic]?.Properties.TopicName).toBe(`repricer-${stage}-alarms`);
  });

  it('subscribes no one unless the deploy says who', () => {
    expect(resourcesOfType(synthStack({ stage }).template, 'AWS::SNS::Subscription')).toEqual({});
  });
});

describe('alarm subscribers from the deploy context', () => {
  it('subscribes each e-mail address and HTTPS endpoint given', () => {
    // Act
    const { template } = synthStack({
      stage: 'staging',
      context: ALARM_SUBSCRIBERS_CONTEXT,
    });
    const topic = resourceId(template, 'AWS::SNS::Topic', 'AlarmsTopic');
    const subscriptions = Object.values(resourcesOfType(template, 'AWS::SNS::Subscription')).map((s) => s.Properties);

    // Assess
    expect(subscriptions.map(({ Protocol, Endpoint }) => `${Protocol} ${Endpoint}`).sort()).toEqual([
      'email oncall@example.com',
      'email ops@example.com',
      'https https://hooks.example.com/alarms',
    ]);
    for (const subscription of subscriptions) expect(subscription.TopicArn).toEqual({ Ref: topic });
  });

  it.each([
    ['alarmEmail', 'not-an-address'],
    ['alarmHttpsEndpoint', 'http://hooks.example.com/alarms'],
  ])('refuses %s=%s at synth', (key, value) => {
    expect(() => synthStack({ stage: 'staging', context: { [key]: value } })).toThrow(key);
  });
});
