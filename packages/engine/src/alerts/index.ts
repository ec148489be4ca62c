/** The in-app alerts' face: what the console's alert pages and the sweep loop call. */
export { createAlertChannel, deleteAlertChannel, sendTestAlert, setAlertChannelEnabled } from './manage-channels';
export { acknowledgeAlert } from './acknowledge';
export { saveAlertRule } from './manage-rules';
export { createSilence, endSilence } from './silences';
export { acknowledgedNow } from './acknowledge-input';
export { quietTimeFor } from './flap-damping';
export { RUNBOOKS_PATH, runbookPath } from './runbooks';
export { deliverDueAlerts } from './deliver';
export type { DeliveryReport } from './deliver';
export { runAlertSweep } from './evaluate';
export type { AlertSweep } from './evaluate';
export type { OutboundOptions } from './outbound-request';
