import "./plugins";

export { fuseName, checkParameter, parameterSchema, ParameterError, type ParameterKind, type ParameterSpec } from "./parameters";
export type { MotionModelDescriptor, PluginDescriptor, SensorDescriptor } from "./PluginDescriptor";
export { motionModelDescriptor, motionModelDescriptors, registerPlugin, sensorDescriptor, sensorDescriptors } from "./registry";
