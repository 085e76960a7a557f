// StrykerJS's type checker drives TypeScript's compiler API, which TypeScript 7 (the native
// compiler the workspace builds with) no longer offers. Its typescript peer would resolve to
// the workspace's 7, so the checker alone gets TypeScript 5 as a dependency of its own.
module.exports = {
  hooks: {
    readPackage(pkg) {
      if (pkg.name === "@stryker-mutator/typescript-checker") {
        delete pkg.peerDependencies.typescript;
        pkg.dependencies = { ...pkg.dependencies, typescript: "5.9.3" };
      }
      return pkg;
    },
  },
};
