describe("a", () => {
  it("x", () => {
    if (y) {
      z();
    }
  });
});
describe("b", () => {
  it("w", () => {
    if (y) {
      q();
    }
  });
});
describe("c", () => {
  it("v", () => {});
});
