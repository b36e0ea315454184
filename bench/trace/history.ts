import type { temporal } from '@temporalio/proto';
import proto from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** One history event, named and placed in time (epoch ms, the server's clock). */
export interface TracedEvent {
  workflow: string;
  at: number;
  type: string;
  /** The activity or timer it concerns, when it concerns one. */
  what: string;
}

const eventName = (e: HistoryEvent): string =>
  (proto.temporal.api.enums.v1.EventType[e.eventType ?? 0] ?? String(e.eventType)).replace(
    /^EVENT_TYPE_/,
    '',
  );

const epochMs = (e: HistoryEvent): number =>
  Number(e.eventTime?.seconds ?? 0) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6);

/** Names each event of a history, following activity events back to the activity's type. */
export function traceHistory(workflow: string, events: HistoryEvent[]): TracedEvent[] {
  const activities = new Map<string, string>();
  return events.map((e) => {
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) activities.set(String(e.eventId), scheduled.activityType?.name ?? '?');
    const ref =
      e.activityTaskStartedEventAttributes?.scheduledEventId ??
      e.activityTaskCompletedEventAttributes?.scheduledEventId ??
      e.activityTaskFailedEventAttributes?.scheduledEventId;
    const what =
      scheduled?.activityType?.name ??
      (ref !== undefined && ref !== null ? activities.get(String(ref)) : undefined) ??
      e.markerRecordedEventAttributes?.markerName ??
      e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ??
      e.workflowExecutionSignaledEventAttributes?.signalName ??
      (e.timerStartedEventAttributes ? `timer ${e.timerStartedEventAttributes.timerId}` : undefined) ??
      '';
    return { workflow, at: epochMs(e), type: eventName(e), what: what ?? '' };
  });
}

/** How many events of each type. */
export function countByType(events: TracedEvent[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of events) counts.set(e.type, (counts.get(e.type) ?? 0) + 1);
  return counts;
}
