/** The words for the file system's error codes a user meets when naming a file to read. */
const REASONS: Readonly<Record<string, string>> = {
  ENOENT: "no such file or folder",
  ENOTDIR: "a part of its path is a file, not a folder",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EISDIR: "it is a folder",
  ELOOP: "its path loops through symbolic links",
  ENAMETOOLONG: "its name is too long",
  EMFILE: "too many files are open (raise the limit: ulimit -n)",
  ENFILE: "too many files are open on this machine",
  EIO: "the disk reported an input/output error",
};

/**
 * Why the file system refused a path, in words (Node's own text, "ENOENT: no such file or
 * directory, stat '…'", names a system call); the error's message for a code not listed.
 */
export function fileSystemReason(err: unknown): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  return (typeof code === "string" ? REASONS[code] : undefined) ?? (err instanceof Error ? err.message : String(err));
}
