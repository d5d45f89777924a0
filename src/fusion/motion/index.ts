export { Unicycle2D, type Unicycle2DOptions } from "./Unicycle2D";
export { Unicycle2DStateKinematicConstraint } from "./Unicycle2DStateKinematicConstraint";
export { Omnidirectional3D, type Omnidirectional3DOptions } from "./Omnidirectional3D";
