import type { MotionModelDescriptor, PluginDescriptor, SensorDescriptor } from "./PluginDescriptor";

const SENSORS = new Map<string, SensorDescriptor>();
const MOTION_MODELS = new Map<string, MotionModelDescriptor>();

/**
 * Registers a plugin under its `type` (fuse's pluginlib export). Throws RangeError when another
 * plugin already has that type.
 */
export function registerPlugin(descriptor: PluginDescriptor): void {
  const map: Map<string, PluginDescriptor> = descriptor.role === "sensor" ? SENSORS : MOTION_MODELS;
  if (map.has(descriptor.type)) {
    throw new RangeError(`fusion plugin "${descriptor.type}" is registered twice`);
  }
  map.set(descriptor.type, descriptor);
}

/** The sensor model registered under `type`, if any. */
export function sensorDescriptor(type: string): SensorDescriptor | undefined {
  return SENSORS.get(type);
}

/** The motion model registered under `type`, if any. */
export function motionModelDescriptor(type: string): MotionModelDescriptor | undefined {
  return MOTION_MODELS.get(type);
}

/** Registered sensor models, in registration order. */
export function sensorDescriptors(): readonly SensorDescriptor[] {
  return [...SENSORS.values()];
}

/** Registered motion models, in registration order. */
export function motionModelDescriptors(): readonly MotionModelDescriptor[] {
  return [...MOTION_MODELS.values()];
}
