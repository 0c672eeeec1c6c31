// The Node.js version check of the `opsman-gitops` command, in plain JavaScript: it runs before tsx is loaded, so that
// an older Node says what to install instead of failing inside a dependency with a syntax or import error.

/** The oldest Node.js this tool supports (package.json `engines`). */
export const MINIMUM_NODE = [20, 19];

/**
 * Why `version` (as `process.versions.node` gives it, e.g. `20.20.2`) cannot run this tool, or undefined when it can.
 * @param {string} version
 * @returns {string | undefined}
 */
export function nodeVersionProblem(version) {
  const match = /^(\d+)\.(\d+)\./.exec(version);
  if (match === null) return undefined; // an unusual build's version string: let it try rather than refuse
  const major = Number(match[1]);
  const minor = Number(match[2]);
  const [needMajor, needMinor] = MINIMUM_NODE;
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined;
  return `opsman-gitops needs Node.js ${needMajor}.${needMinor} or newer; this is Node.js ${version} (install a current Node.js 20 or 22 LTS, e.g. with nvm: nvm install 22)`;
}
