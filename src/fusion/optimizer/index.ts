export { BatchOptimizer, type BatchOptimizerOptions } from "./BatchOptimizer";
export { FixedLagSmoother, type FixedLagSmootherOptions } from "./FixedLagSmoother";
export { GraphProblem } from "./GraphProblem";
export {
  LevenbergMarquardt,
  type SolverOptions,
  type SolverSummary,
  type TerminationType,
} from "./LevenbergMarquardt";
export { MarginalConstraint } from "./MarginalConstraint";
export {
  Optimizer,
  OptimizerError,
  type ClockedOptimizerOptions,
  type OptimizerOptions,
  type SensorRegistration,
  type TransactionDrop,
} from "./Optimizer";
export { Problem, type ParameterBlock, type ResidualBlock } from "./Problem";
export { costFunctionFor, type ConstraintCost } from "./costFunctionFor";
export { marginalizeVariables } from "./marginalizeVariables";
export { odometry2DEstimate, type Odometry2DEstimate } from "./odometry2DEstimate";
