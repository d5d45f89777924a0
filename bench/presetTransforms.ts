import { TransformBuffer } from "../src/filters/tf";
import { configTransform, type TransformConfig } from "../src/pipeline";

/** A preset's static transforms in a transform buffer, as the pipeline sets them up. */
export function presetTransforms(transforms: readonly TransformConfig[]): TransformBuffer {
  const tf = new TransformBuffer();
  for (const t of transforms) {
    tf.setStaticTransform(t.parent, t.child, configTransform(t));
  }
  return tf;
}
