// Public face of the ros policies (filled in as the policies land).
export {};
