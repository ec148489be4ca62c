import {
  type BaseMessage,
  isBaseMessage,
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
  type StoredMessage,
} from '@langchain/core/messages';

/**
 * A node's or task's result as Holdfast stores it (JSON) and as a replay hands it back. LangChain
 * messages are the one kind of object state updates commonly hold: they are stored in LangChain's own
 * plain form under a marker and made messages again on replay, so a replayed update reads like the
 * first one. Other class instances come back as their JSON.
 */
const MESSAGE = 'holdfast:message';

export function storableOf(value: unknown): unknown {
  if (isBaseMessage(value)) return { [MESSAGE]: mapChatMessagesToStoredMessages([value])[0] };
  if (Array.isArray(value)) return value.map(storableOf);
  if (isPlainObject(value))
    return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, storableOf(field)]));
  return value;
}

export function revivedOf<T>(value: unknown): T {
  if (Array.isArray(value)) return value.map((item) => revivedOf(item)) as T;
  if (isPlainObject(value)) {
    const stored = value[MESSAGE] as StoredMessage | undefined;
    if (stored && Object.keys(value).length === 1)
      return mapStoredMessagesToChatMessages([stored])[0] as BaseMessage as T;
    return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, revivedOf(field)])) as T;
  }
  return value as T;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
