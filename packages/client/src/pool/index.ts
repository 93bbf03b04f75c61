export { type BackoffOptions, backoffDelay } from './backoff'
export type { LivenessOptions, LivenessTimers } from './liveness'
export { NegentropyError, type ReconcileItem, type ReconcileResult } from './negentropy'
export { fetchRelayInfo, type RelayInfo, relayKeyOf } from './nip11'
export type { RelayClocks } from './relay-clock'
export {
  type AuthPolicy,
  type AuthState,
  type PublishResult,
  RelayPool,
  type RelayPoolOptions,
  type SubscriptionHandlers,
} from './relay-pool'
export { groupSubscriptionId } from './subscription-id'
