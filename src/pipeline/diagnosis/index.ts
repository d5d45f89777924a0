export { CAUSE_IDS, findCauses, type CauseId, type DiagnosisCause } from "./causes";
export { describeDiagnosis, diagnose, type DiagnoseOptions, type Diagnosis, type DiagnosisSuggestion } from "./diagnose";
export { traceFacts, type TopicFacts, type TraceFacts } from "./facts";
export { fateReason, runTrace, type RunTraceOptions, type TraceRun } from "./runTrace";
export { searchPolicy, type Evaluation, type PolicySearchResult } from "./search";
export { SEARCH_SPACE, familyOf, searchSpaceOf, type SearchablePolicy, type SearchableParameter } from "./searchSpace";
export { StampTrace, type TraceEventKind } from "./StampTrace";
export { TraceRecorder } from "./TraceRecorder";
export { DiagnosisExtension } from "./DiagnosisExtension";
