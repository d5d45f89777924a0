export { Unicycle2D, type Unicycle2DOptions } from "./Unicycle2D";
export { Unicycle2DStateKinematicConstraint } from "./Unicycle2DStateKinematicConstraint";
