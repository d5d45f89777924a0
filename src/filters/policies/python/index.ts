// Public face of the python policies (filled in as the policies land).
export {};
