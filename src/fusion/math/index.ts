export { AbsoluteCost } from "./AbsoluteCost";
export { AbsolutePose2DCost } from "./AbsolutePose2DCost";
export { Corrector } from "./Corrector";
export type { CostFunction } from "./CostFunction";
export { MarginalCost, type MarginalTerm } from "./MarginalCost";
export { RelativeCost } from "./RelativeCost";
export { RelativePose2DCost } from "./RelativePose2DCost";
export { Unicycle2DStateCost } from "./Unicycle2DStateCost";
export { wrapAngle } from "./angles";
// Every robust loss, the loss interface and the factory: the module's whole surface.
export * from "./losses";
export { predictUnicycle2D, UNICYCLE_STATE_SIZE } from "./unicycle2d";
