export const directDispatchKey: unique symbol;
export const directBodyKey: unique symbol;
export const hungUpKey: unique symbol;
export const startedKey: unique symbol;
export const stopServiceKey: unique symbol;
export const peerAddressHeader: "x-peer-address";
export const operatorSocketHeader: "x-operator-socket";
export const operatorSecretVariable: "OPERATOR_SOCKET_SECRET";
export const operatorSocketFile: "operator.sock";
