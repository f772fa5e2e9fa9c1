// Contract tests against any running deployment: the requests the property tests generate from
// openapi.yaml, sent over HTTP, every response checked against openapi.yaml itself.
//   CONTRACT_API_KEY=… npm run contract -- --url https://staging.api.petstore.example/v1
//   npm run contract -- --url http://127.0.0.1:3000/v1 --key-file .api-key --read-only
// Exit status: 0 when every check holds, 1 on a violation, 2 when it could not run.
import { runContract } from './contract/run-contract.js';

process.exitCode = await runContract(process.argv.slice(2), process.env);
