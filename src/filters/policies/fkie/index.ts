// Public face of the fkie policies (filled in as the policies land).
export {};
