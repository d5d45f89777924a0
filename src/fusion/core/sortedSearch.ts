/** The shared binary searches (time/sortedSearch), where fusion's core reads them. */
export { lowerBound, upperBound } from "../../time/sortedSearch";
