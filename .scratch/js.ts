import { z } from 'zod';
import { recordAttemptInput, claimKeyInput } from '../lib/core';
console.log(JSON.stringify(z.toJSONSchema(recordAttemptInput, { io: 'input', unrepresentable: 'any' }), null, 1).slice(0, 1500));
console.log(JSON.stringify(z.toJSONSchema(claimKeyInput, { io: 'input', unrepresentable: 'any' })).slice(0, 600));
