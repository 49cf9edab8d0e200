/**
 * The tshark fields of one packet summary, keyed by the summary's own names (PacketSummary in
 * the contract): what the agent's tshark prints beside the bytes and what a local tshark prints
 * for the packet list, so both decode the same columns, in this order.
 */
export const PACKET_FIELDS = {
  no: 'frame.number',
  time: 'frame.time_epoch',
  interface: 'frame.interface_name',
  source: '_ws.col.Source',
  destination: '_ws.col.Destination',
  protocol: '_ws.col.Protocol',
  info: '_ws.col.Info',
} as const;
