export { initLockstepPanel } from "./LockstepPanel";
