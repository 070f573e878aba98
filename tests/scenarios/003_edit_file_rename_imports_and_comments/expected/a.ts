const userIdentifier = getUserId();
console.log(userIdentifier);
if (userIdentifier) {
  return userIdentifier.toString();
}
import { foo } from './new-path';
import { bar } from './new-path';
// DONE
function f() {
  // DONE
}
