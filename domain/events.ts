/** What a webhook endpoint can subscribe to. */
export const EVENT_TYPES = ['endorsement.status_changed', 'grant.status_changed'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
