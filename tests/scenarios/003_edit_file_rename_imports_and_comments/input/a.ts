const userId = getUserId();
console.log(userId);
if (userId) {
  return userId.toString();
}
import { foo } from './old-path';
import { bar } from './old-path';
// TODO: implement this
function f() {
  // TODO: implement this
}
