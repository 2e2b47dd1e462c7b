// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `written` holds source text as found, template literals included

/**
 * Corpus of real option objects given to the npm `cors` package (expressjs/cors 2.8.x) as
 * `cors(options)`, and to NestJS `app.enableCors(options)` (which hands them to `cors` on Express),
 * collected from public GitHub repositories (issue 31, point 4). Each entry records the text as
 * written at one stored commit, the same options as a value (environment variables and imported
 * lists replaced by what the app plausibly meant, said in `assumed`), and the page origins the
 * app meant to grant. Data only: nothing here is executed by the library.
 */

/** The second argument of the callback an origin function receives, as `cors` accepts it. */
export type StaticOrigin = boolean | string | RegExp | ReadonlyArray<boolean | string | RegExp>;
/** The callback `cors` passes to an origin function. */
export type OriginCallback = (err: Error | null, origin?: StaticOrigin) => void;

export interface CorpusEntry {
  /** repo owner/name, file path, and commit (or 'unknown') where it was found */
  readonly source: { repo: string; path: string; commit: string };
  /** the option object as written there; where it holds an origin function, a pointer to the source instead of its code */
  readonly written: string;
  /** the same options as a JS value in `cors`'s own format, with env vars and variables replaced by the plausible value the app meant (say which in `assumed`); functions rewritten as equivalent callback-form functions */
  readonly options: Record<string, unknown>;
  /** what the app meant: the page origin(s) that should be granted, e.g. ['http://localhost:3000'] (from the code, README, or env example files of that repo) */
  readonly intendedOrigins: readonly string[];
  /** what was assumed to fill variables, or '' */
  readonly assumed: string;
  /** 'cors' or 'nestjs-enableCors' */
  readonly via: 'cors' | 'nestjs-enableCors';
}

export const CORPUS: readonly CorpusEntry[] = [
  {
    source: { repo: 'GabrielHK97/site-backend', path: 'src/main.ts', commit: '4d45137635fa5ec6218b113afb4267b8ed644794' },
    written: "{\n    origin: '*',\n    methods: 'GET,HEAD,PUT,PATCH,POST,DELETE,OPTIONS',\n    preflightContinue: false,\n    credentials: true,\n  }",
    options: { origin: '*', methods: 'GET,HEAD,PUT,PATCH,POST,DELETE,OPTIONS', preflightContinue: false, credentials: true },
    intendedOrigins: ['https://any-site.example'],
    assumed:
      "Passed as a variable: `const options = {...}; app.enableCors(options)`, after `NestFactory.create(AppModule, { cors: true })` had already enabled CORS with defaults. origin '*' means any page origin; https://any-site.example stands for one.",
    via: 'nestjs-enableCors',
  },
  {
    source: { repo: 'Zakirov-Yuriy/form-kit-vue', path: 'server/src/main.ts', commit: '12aba72974b53e40f42706afdc6dac742e5163b8' },
    written:
      "{\n    origin: '*', // можно указать список разрешённых доменов\n    methods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],\n    credentials: true,\n  }",
    options: { origin: '*', methods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'], credentials: true },
    intendedOrigins: ['http://localhost:5173'],
    assumed:
      "The repo's front end is the Vite app in vue-forms/ (dev origin assumed to be Vite's default http://localhost:5173); the comment says a list of allowed domains could be given instead of '*'.",
    via: 'nestjs-enableCors',
  },
  {
    source: { repo: 'holyPaladu/todo_backend', path: 'src/main.ts', commit: 'fdc30272791adbfad1f0309daea1239967aba31e' },
    written:
      "{\n    origin: 'http://localhost:3000', // Разрешает только этот источник\n    methods: 'GET,HEAD,PUT,PATCH,POST,DELETE', // Разрешенные методы\n    credentials: true, // Разрешить отправку куки\n  }",
    options: { origin: 'http://localhost:3000', methods: 'GET,HEAD,PUT,PATCH,POST,DELETE', credentials: true },
    intendedOrigins: ['http://localhost:3000'],
    assumed: '',
    via: 'nestjs-enableCors',
  },
  {
    source: { repo: 'soufiane-amt/ft_transcendance', path: 'back-end/src/main.ts', commit: '0cd531456ae98dd499ec5cc44311a82629f0131d' },
    written:
      "{\n    origin: process.env.FRONT_SERV,\n    // credentials: true,\n    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],\n    allowedHeaders: ['Content-Type', 'Authorization'],\n  }",
    options: {
      origin: 'http://localhost:3000',
      methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      allowedHeaders: ['Content-Type', 'Authorization'],
    },
    intendedOrigins: ['http://localhost:3000'],
    assumed:
      'FRONT_SERV assumed to be http://localhost:3000 (the Next.js front end of this project; the value is not in the stored files). credentials is commented out in this version.',
    via: 'nestjs-enableCors',
  },
  {
    source: { repo: 'Yassineelkasmy/wildbet-nestjs-service', path: 'src/main.ts', commit: '083e4255dc2568fb468071b4642a322b4d49d447' },
    written:
      "{\n    //origin: `http://${environment.cors_origin_host}:${environment.cors_origin_port}`,\n    origin: /https?:\\/\\/(([^/]+\\.)?localhost\\:4200)$/i,\n\n    methods: 'GET,HEAD,PUT,PATCH,POST,DELETE',\n    allowedHeaders: 'Content-Type, Accept',\n   \n  }",
    options: {
      // biome-ignore lint/complexity/noUselessEscapeInRegex: recorded as written
      origin: /https?:\/\/(([^/]+\.)?localhost\:4200)$/i,
      methods: 'GET,HEAD,PUT,PATCH,POST,DELETE',
      allowedHeaders: 'Content-Type, Accept',
    },
    intendedOrigins: ['http://localhost:4200'],
    assumed: 'Angular dev server on port 4200, as the RegExp says. The RegExp has no ^ anchor.',
    via: 'nestjs-enableCors',
  },
  {
    source: { repo: 'GMF-GSE-Training/temp-api', path: 'src/main.ts', commit: '0d791ef8c6cdac3a0b7bfa7caa40c383fb93e2e9' },
    written:
      "{\n    origin: `*`,\n    methods: 'GET,HEAD,PUT,PATCH,POST,DELETE',\n    allowedHeaders: 'Authorization, Content-Type',\n    credentials: true,\n  }",
    options: { origin: '*', methods: 'GET,HEAD,PUT,PATCH,POST,DELETE', allowedHeaders: 'Authorization, Content-Type', credentials: true },
    intendedOrigins: ['https://any-site.example'],
    assumed:
      "origin is the template literal `*`, i.e. '*': any page origin; https://any-site.example stands for one. (Another stored version of this file had origin: `${process.env.ORIGIN}`.)",
    via: 'nestjs-enableCors',
  },
  {
    source: { repo: 'anwarhakim31/catcare-expert-system', path: 'backend/src/main.ts', commit: '14dd4f6f87be9a4c4d96821f38e488cebad860fc' },
    written:
      "{\n    origin: [process.env.ORIGIN || 'http://localhost:3000'],\n    methods: ['GET', 'PUT', 'PATCH', 'POST', 'DELETE'],\n    credentials: true,\n  }",
    options: { origin: ['http://localhost:3000'], methods: ['GET', 'PUT', 'PATCH', 'POST', 'DELETE'], credentials: true },
    intendedOrigins: ['http://localhost:3000'],
    assumed: 'ORIGIN unset, so the fallback http://localhost:3000 written in the code.',
    via: 'nestjs-enableCors',
  },
  {
    source: { repo: 'Sui-Circle/backend', path: 'src/main.ts', commit: '0e0388b00dd8edaeb02def5d377a0f8eab646d7b' },
    written:
      "{\n  origin: [\n    'http://localhost:5173',\n    'http://localhost:5174',\n    'http://localhost:5175',\n    'http://localhost:5176',\n    'http://localhost:3000',\n    'http://localhost:4173',\n    'https://frontend-delta-umber-24.vercel.app', // ✅ Add your Vercel frontend here\n  ],\n  methods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],\n  allowedHeaders: ['Content-Type', 'Authorization'],\n  credentials: true,\n  // Expose headers so the frontend can read them (needed for filename and encryption status)\n  exposedHeaders: ['Content-Disposition', 'X-File-Encrypted', 'X-Seal-Encryption-Id', 'Content-Length', 'Content-Type'],\n}",
    options: {
      origin: [
        'http://localhost:5173',
        'http://localhost:5174',
        'http://localhost:5175',
        'http://localhost:5176',
        'http://localhost:3000',
        'http://localhost:4173',
        'https://frontend-delta-umber-24.vercel.app',
      ],
      methods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
      allowedHeaders: ['Content-Type', 'Authorization'],
      credentials: true,
      exposedHeaders: ['Content-Disposition', 'X-File-Encrypted', 'X-Seal-Encryption-Id', 'Content-Length', 'Content-Type'],
    },
    intendedOrigins: ['http://localhost:5173', 'http://localhost:4173', 'https://frontend-delta-umber-24.vercel.app'],
    assumed: '',
    via: 'nestjs-enableCors',
  },
  {
    source: { repo: 'Yofannnn/nest-tic-tac-toe', path: 'src/main.ts', commit: 'c4006568aba443d53b6907f29b3ac5ad9174e16f' },
    written:
      "{\n    origin: process.env.ORIGIN_DOMAIN,\n    credentials: true,\n    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],\n    allowedHeaders: ['Content-Type', 'Authorization'],\n  }",
    options: {
      origin: 'http://localhost:5173',
      credentials: true,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      allowedHeaders: ['Content-Type', 'Authorization'],
    },
    intendedOrigins: ['http://localhost:5173'],
    assumed: 'ORIGIN_DOMAIN assumed to be a local Vite front end, http://localhost:5173 (its value is not in the stored files).',
    via: 'nestjs-enableCors',
  },
  {
    source: { repo: 'MariaBelyaeva18/3d-visual', path: 'backend/src/main.ts', commit: '01cb0d6be5cfbf602a284bac26c68296b7f9351a' },
    written: "{\n    exposedHeaders: ['Content-Disposition'],\n    credentials: true,\n    origin: true,\n  }",
    options: { exposedHeaders: ['Content-Disposition'], credentials: true, origin: true },
    intendedOrigins: ['https://any-site.example'],
    assumed:
      'origin: true reflects any page origin; https://any-site.example stands for one. Note: enableCors is called after `await app.listen(8080)` in this file.',
    via: 'nestjs-enableCors',
  },
  {
    source: { repo: 'kannan-ravi/task-manager-ciphrix', path: 'backend/config/cors.js', commit: '57454328bdd8533db5f19fbed72656b6f6b3078b' },
    written:
      '{\n  origin: [process.env.CLIENT_URL, "https://task-manager-ciphrix.vercel.app"],\n  methods: ["GET", "POST", "PUT", "DELETE"],\n  credentials: true,\n}',
    options: {
      origin: ['http://localhost:5173', 'https://task-manager-ciphrix.vercel.app'],
      methods: ['GET', 'POST', 'PUT', 'DELETE'],
      credentials: true,
    },
    intendedOrigins: ['http://localhost:5173', 'https://task-manager-ciphrix.vercel.app'],
    assumed: 'CLIENT_URL assumed to be the local Vite front end http://localhost:5173.',
    via: 'cors',
  },
  {
    source: { repo: 'mazenaliii/MyVenn-Backend', path: 'middlewares/cors.js', commit: '450a405ea908af2576d04edf387d5b1c233754a7' },
    written: '{ origin: process.env.CLIENT_ORIGIN || "http://localhost:3000" || "http://localhost:3000",  \'Access-Control-Allow-Credentials\': true }',
    options: { origin: 'http://localhost:3000', 'Access-Control-Allow-Credentials': true },
    intendedOrigins: ['http://localhost:3000'],
    assumed:
      "CLIENT_ORIGIN unset, so http://localhost:3000. The key 'Access-Control-Allow-Credentials' is a header name, not a cors option; cors ignores it, so credentials are not allowed.",
    via: 'cors',
  },
  {
    source: { repo: 'muhammadsarim11/Backend', path: 'src/app.js', commit: '34714e4a33374f2209f338ab36b5fd17497c2b20' },
    written: '{\n    origin: "process.env.CLIENT_URL",\n    credentials: true,\n  }',
    options: { origin: 'process.env.CLIENT_URL', credentials: true },
    intendedOrigins: ['http://localhost:5173'],
    assumed:
      'The origin is the literal string "process.env.CLIENT_URL" (quoted by mistake), so no page origin matches. The app meant the value of CLIENT_URL, assumed to be http://localhost:5173.',
    via: 'cors',
  },
  {
    source: { repo: 'SaHILL87/Chatly-server', path: 'constants/config.js', commit: '529abe0ec2b3d71a7e7a35c3e94b972296feb595' },
    written:
      '{\n  origin: process.env.CLIENT_URL,\n  credentials: true,\n  methods: "GET,HEAD,PUT,PATCH,POST,DELETE",\n  preflightContinue: false,\n  optionsSuccessStatus: 204,\n}',
    options: {
      origin: 'http://localhost:5173',
      credentials: true,
      methods: 'GET,HEAD,PUT,PATCH,POST,DELETE',
      preflightContinue: false,
      optionsSuccessStatus: 204,
    },
    intendedOrigins: ['http://localhost:5173'],
    assumed: "CLIENT_URL assumed to be http://localhost:5173. (Another stored version of this file had origin: '*' with credentials: true.)",
    via: 'cors',
  },
  {
    source: { repo: 'olekf/learn-nodejs-tasks', path: 'src/config/cors.js', commit: '9f8470ec1f0734f3182f9526fa9efea1755253bc' },
    written: '(an origin function: read it at its source, which the options below restate)',
    options: {
      origin: (origin: string | undefined, callback: OriginCallback): void => {
        const whitelist = ['http://example1.com', 'http://example2.com', 'http://localhost:3000'];
        if (!origin || whitelist.indexOf(origin) !== -1) {
          return callback(null, true);
        }
        return callback(new Error(`Not allowed by CORS: ${origin}`));
      },
    },
    intendedOrigins: ['http://example1.com', 'http://example2.com', 'http://localhost:3000'],
    assumed:
      "whitelist = ['http://example1.com', 'http://example2.com', `http://localhost:${process.env.PORT}`] in the same file; PORT assumed 3000 (the server's own port).",
    via: 'cors',
  },
  {
    source: { repo: 'mkoner/nodejs', path: 'node-express/config/corsOptions.js', commit: '494a2013b0f7f5bf66fa9a84aaf0bbad9d0490d1' },
    written: '(an origin function: read it at its source, which the options below restate)',
    options: {
      origin: (origin: string | undefined, callback: OriginCallback): void => {
        const whitelist = ['http://example1.com', 'http://example2.com'];
        if (!origin || whitelist.indexOf(origin) !== -1) {
          callback(null, true);
        } else {
          callback(new Error('Not allowed by CORS'));
        }
      },
    },
    intendedOrigins: ['http://example1.com', 'http://example2.com'],
    assumed: "whitelist = ['http://example1.com', 'http://example2.com'] in the same file (the cors README example).",
    via: 'cors',
  },
  {
    source: { repo: 'EmanHasn/corsTask', path: 'config/corsOptions.js', commit: '96022a06be28ea8e15c45c1d2790e125a50067ef' },
    written: '(an origin function: read it at its source, which the options below restate)',
    options: {
      origin: (origin: string | undefined, cb: OriginCallback): void => {
        const whitelist = ['https://www.yahoo.com', 'http://google.com', 'https://127.0.0.1:3000'];
        if (origin !== undefined && whitelist.indexOf(origin) !== -1) {
          cb(null, true);
        } else {
          cb(new Error('Not allowed by CORS'));
        }
      },
    },
    intendedOrigins: ['https://www.yahoo.com', 'http://google.com', 'https://127.0.0.1:3000'],
    assumed:
      'whitelist from config/allowedOrigin.js (commit 3141a9d23d48409af08aa4e927fdf9fe3b963c62). No !origin branch: requests without Origin are rejected with an error.',
    via: 'cors',
  },
  {
    source: { repo: 'ranjoyghosh88/lat-long-tracking', path: 'api/cors_fix.js', commit: 'c46f9614236a661a250b2b8207558afe442148ea' },
    written: '(an origin function: read it at its source, which the options below restate)',
    options: {
      origin: (origin: string | undefined, callback: OriginCallback): void => {
        const CORS_ORIGIN: string | undefined = undefined;
        if (!origin || /^http:\/\/localhost:\d+$/.test(origin) || /^http:\/\/127\.0\.0\.1:\d+$/.test(origin) || origin === CORS_ORIGIN) {
          callback(null, true);
        } else {
          callback(new Error('Not allowed by CORS'));
        }
      },
    },
    intendedOrigins: ['http://localhost:5173', 'http://127.0.0.1:5173'],
    assumed:
      'CORS_ORIGIN is defined elsewhere (not in this file); assumed unset. Any localhost / 127.0.0.1 port over http was meant; port 5173 stands for one.',
    via: 'cors',
  },
  {
    source: { repo: 'torfune/alza-heroes-be', path: 'src/corsOptions.ts', commit: '22bd0c2295db476b8ac849a0a779d0a7ce2002e2' },
    written: '(an origin function: read it at its source, which the options below restate)',
    options: {
      origin: (origin: string | undefined, cb: OriginCallback): void => {
        if (!origin || /localhost/.test(origin)) {
          cb(null, true);
          return;
        }
        cb(new Error('Not allowed'), false);
      },
    },
    intendedOrigins: ['http://localhost:3000'],
    assumed: 'Front end assumed at http://localhost:3000. The RegExp /localhost/ is unanchored: it also matches e.g. https://localhost.attacker.example.',
    via: 'cors',
  },
  {
    source: { repo: 'feniln64/copypaste_node', path: 'config/corsOptions.js', commit: '1ddd99d1cf0b206406b1d944e672d4b4dcf790a3' },
    written: '{\n  origin: "*",\n  optionsSuccessStatus: 200 // some legacy browsers (IE11, various SmartTVs) choke on 204\n}',
    options: { origin: '*', optionsSuccessStatus: 200 },
    intendedOrigins: ['http://localhost:3000', 'http://vscode.readyle.live:3000', 'http://test.readyle.live:5000'],
    assumed:
      'The same file defines allowedOrigins = [http://localhost:3000, http://vscode.readyle.live:3000, http://test.readyle.live:5000] and a RegExp for readyle.live, but passes "*" instead; intendedOrigins is that unused list.',
    via: 'cors',
  },
  {
    source: { repo: 'isthmusx/Book-Store---MERN', path: 'backend/tempCodeRunnerFile.js', commit: '04cecef7311b92a99ab6624e506783bc7982de19' },
    written:
      "{\n        origin: 'http://localhost:5555/',\n        methods: ['GET', 'POST', 'PUT', 'DELETE'],\n        allowedHeaders: ['Content-Type'],\n    }",
    options: { origin: 'http://localhost:5555/', methods: ['GET', 'POST', 'PUT', 'DELETE'], allowedHeaders: ['Content-Type'] },
    intendedOrigins: ['http://localhost:5173'],
    assumed:
      "Trailing slash in the origin. 5555 is this backend's own port; the React (Vite) front end assumed at http://localhost:5173. (tempCodeRunnerFile.js is a VS Code Code Runner scratch copy of the server code.)",
    via: 'cors',
  },
  {
    source: { repo: 'JeffreyDChau/MongoAirbnb', path: 'index.js', commit: 'e2d946f111ae63fe0bb0d86e814ef868440ae9f8' },
    written: "{\n  origin: 'http://localhost:3000/findOne'\n}",
    options: { origin: 'http://localhost:3000/findOne' },
    intendedOrigins: ['http://localhost:3000'],
    assumed: 'The origin carries a path (/findOne), which an Origin header never has.',
    via: 'cors',
  },
  {
    source: { repo: 'tikhusaenov/emotion-app', path: 'client/server.js', commit: '52392537388af9fe610c8c86908f43d58c2197ad' },
    written:
      "{\n    origin:'https://localhost:3000',\n    credentials:true,            //access-control-allow-credentials:true\n    optionSuccessStatus:200\n}",
    options: { origin: 'https://localhost:3000', credentials: true, optionSuccessStatus: 200 },
    intendedOrigins: ['http://localhost:3000'],
    assumed:
      'https:// written for a dev server assumed to run on http://localhost:3000. optionSuccessStatus is a misspelling of optionsSuccessStatus and is ignored.',
    via: 'cors',
  },
  {
    source: { repo: 'Nguyenle23/WAD-Project-Course', path: 'APIs/src/config/domain.js', commit: '6e5c2feeb4060a51073fa2f823e0355ba6b0cd43' },
    written: '(an origin function: read it at its source, which the options below restate)',
    options: {
      origin: (origin: string | undefined, callback: OriginCallback): void => {
        const WHITELIST_DOMAIN = ['http://localhost:3000, http://localhost:3001'];
        if (origin !== undefined && WHITELIST_DOMAIN.indexOf(origin) !== -1) {
          callback(null, true);
        } else {
          callback(new Error(`${origin} is not allowed by CORS`));
        }
      },
      credentials: true,
      optionSuccessStatus: 200,
    },
    intendedOrigins: ['http://localhost:3000', 'http://localhost:3001'],
    assumed:
      "WHITELIST_DOMAIN = ['http://localhost:3000, http://localhost:3001'] in the same file: ONE string holding two origins separated by a comma, so neither matches. optionSuccessStatus is misspelt and ignored.",
    via: 'cors',
  },
  {
    source: { repo: 'd4tdev/api-workflow-management', path: 'src/config/cors.js', commit: '5f49c853322991e066060086dabc15bd8aedeab5' },
    written: '(an origin function: read it at its source, which the options below restate)',
    options: {
      origin: (origin: string | undefined, callback: OriginCallback): void => {
        const WHITELIST_DOMAINS = ['http://localhost:3000', 'http://localhost:3001'];
        if ((origin !== undefined && WHITELIST_DOMAINS.indexOf(origin) !== -1) || !origin) {
          callback(null, true);
        } else {
          // as written, $`...` calls an undefined tag function `$`, which throws before callback is reached
          throw new ReferenceError('$ is not defined');
        }
      },
      credentials: true,
      optionsSuccessStatus: 200,
    },
    intendedOrigins: ['http://localhost:3000', 'http://localhost:3001'],
    assumed:
      "WHITELIST_DOMAINS = ['http://localhost:3000', 'http://localhost:3001'] in the same file. The rejection branch uses $`...` (a stray $ turns the template into a tagged template), so a refused origin throws a ReferenceError instead of passing an Error.",
    via: 'cors',
  },
  {
    source: { repo: 'garali10/smart', path: 'Front/admin/server/index.js', commit: '28edb8081dab8e932a0b3f1b63a859fabdaefef5' },
    written:
      "{\n  origin: [\"http://localhost:3000\", \"http://localhost:3001\"],\n  credentials: true,\n  methods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],\n  allowedHeaders: ['Content-Type', 'Authorization']\n}",
    options: {
      origin: ['http://localhost:3000', 'http://localhost:3001'],
      credentials: true,
      methods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
      allowedHeaders: ['Content-Type', 'Authorization'],
    },
    intendedOrigins: ['http://localhost:3000', 'http://localhost:3001'],
    assumed: '',
    via: 'cors',
  },
  {
    source: { repo: 'shiivamtaneja/project-phase', path: 'backend/index.js', commit: '0c9bf9d18c5273bbc631fc065e5cd7027db948a2' },
    written:
      "{\n  origin: 'http://localhost:3001',\n  methods: 'GET,HEAD,PUT,PATCH,POST,DELETE',\n  credentials: true, // Allow cookies and authentication headers to be sent\n}",
    options: { origin: 'http://localhost:3001', methods: 'GET,HEAD,PUT,PATCH,POST,DELETE', credentials: true },
    intendedOrigins: ['http://localhost:3001'],
    assumed: '',
    via: 'cors',
  },
  {
    source: { repo: 'victorocna/express-mongo-api-starter', path: 'cors/setup-cors.js', commit: 'a44c58566a2ea00966f61837e993ae6b46453aa3' },
    written: "{\n    origin,\n    credentials: true,\n    exposedHeaders: [\n      'Content-Disposition',\n      // add exposed headers here\n    ],\n  }",
    options: {
      origin: (origin: string | undefined, callback: OriginCallback): void => {
        const isDev = true; // NODE_ENV unset, so process.env.NODE_ENV !== 'production'
        if (!origin || isDev) {
          return callback(null, true);
        }
        if (origin === 'http://localhost:3000') {
          return callback(null, true);
        }
        const whitelist: string[] = [];
        if (whitelist.some((domain) => origin.indexOf(domain) === 0)) {
          return callback(null, true);
        }
        callback(new Error('Not allowed by CORS'));
      },
      credentials: true,
      exposedHeaders: ['Content-Disposition'],
    },
    intendedOrigins: ['http://localhost:3000'],
    assumed:
      '`origin` is the function in cors/origin.js (commit 227c45c0cdda7cee220a89587a8bdfebbfed9a03): allow no-origin or non-production, then origin === process.env.APP_BASE_URL, then a PREFIX match against cors/whitelist.js (empty, examples commented out). Assumed NODE_ENV unset and APP_BASE_URL=http://localhost:3000.',
    via: 'cors',
  },
  {
    source: { repo: 'CordXApp/API', path: 'src/controllers/corsOptions.js', commit: '0dba121edff3d29e9ea042e794e661a7484f3bd0' },
    written:
      "{\n    origin: '*',\n    allowedHeaders: [\n        'secret',\n        'userid',\n        'Authorization',\n        'authorization',\n        'Content-Type',\n        'Content-Disposition',\n        'Content-Length'\n    ],\n    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],\n    credentials: true,\n    optionsSuccessStatus: 200,\n    preflight: false,\n    strictPreflight: false\n}",
    options: {
      origin: '*',
      allowedHeaders: ['secret', 'userid', 'Authorization', 'authorization', 'Content-Type', 'Content-Disposition', 'Content-Length'],
      methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      credentials: true,
      optionsSuccessStatus: 200,
      preflight: false,
      strictPreflight: false,
    },
    intendedOrigins: ['https://any-site.example'],
    assumed:
      "origin '*' with credentials: any page origin was meant; https://any-site.example stands for one. preflight and strictPreflight are @fastify/cors options; the cors package ignores them. Exported as module.exports.corsOptions.",
    via: 'cors',
  },
  {
    source: { repo: 'edinliu/express-message-board-api', path: 'cors.js', commit: '89488dbd817307f76c976a78025d1a6913bd9af8' },
    written: "{\n  methods: 'GET,HEAD,PUT,PATCH,POST,DELETE,OPTIONS',\n  allowedHeaders: ['Content-Type', 'Authorization'],\n}",
    options: { methods: 'GET,HEAD,PUT,PATCH,POST,DELETE,OPTIONS', allowedHeaders: ['Content-Type', 'Authorization'] },
    intendedOrigins: ['https://any-site.example'],
    assumed: "No origin: cors's default '*'. Any page origin was meant; https://any-site.example stands for one.",
    via: 'cors',
  },
  {
    source: { repo: 'IglanCardeal/my-sweet-url', path: 'src/middlewares/cors-options.ts', commit: '6531dbab065fe4b7d0726006721f1ce028572f11' },
    written:
      "{\n  origin: true,\n  methods: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'],\n  allowedHeaders: ['Content-Type', 'Authorization'],\n  maxAge: 86400,\n}",
    options: { origin: true, methods: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'], allowedHeaders: ['Content-Type', 'Authorization'], maxAge: 86400 },
    intendedOrigins: ['https://any-site.example'],
    assumed: 'origin: true reflects any page origin; https://any-site.example stands for one.',
    via: 'cors',
  },
  {
    source: { repo: 'hdesumo/api-comptavision', path: 'src/app.js', commit: 'f60a97ee83f988004976d6691e26ef83a02ef6a3' },
    written: '{ origin: origins.length ? origins : true, credentials: true }',
    options: { origin: true, credentials: true },
    intendedOrigins: ['https://any-site.example'],
    assumed:
      "origins = (process.env.CORS_ORIGINS || '').split(',').map(s => s.trim()).filter(Boolean); CORS_ORIGINS assumed unset, so origin: true (reflect any origin, with credentials); https://any-site.example stands for one.",
    via: 'cors',
  },
  {
    source: { repo: 'Basel-01/tech-notes-api', path: 'config/corsOptions.js', commit: '43899b018b1109af6f38c54d392df9db2010680b' },
    written: '{\n  origin: allowedOrigins,\n  credentials: true,\n  optionsSuccessStatus: 200,\n}',
    options: { origin: ['http://localhost:3000'], credentials: true, optionsSuccessStatus: 200 },
    intendedOrigins: ['http://localhost:3000'],
    assumed: "allowedOrigins = process.env.ALLOWED_ORIGINS.split(','); ALLOWED_ORIGINS assumed to be http://localhost:3000 (the React front end).",
    via: 'cors',
  },
  {
    source: { repo: 'heangchihav/express-ai-docker', path: 'expressjs/src/config/corsOption.ts', commit: '636356f6f5fff34a85e1bc097ea9e4ed67f3f73d' },
    written:
      "{\n    origin: process.env.ALLOWED_ORIGINS ? process.env.ALLOWED_ORIGINS.split(',') : '*',\n    methods: process.env.ALLOWED_METHODS ? process.env.ALLOWED_METHODS.split(',') : \"*\",\n    credentials: true,\n    optionsSuccessStatus: 200 // some legacy browsers (IE11, various SmartTVs) choke on 204\n}",
    options: { origin: '*', methods: '*', credentials: true, optionsSuccessStatus: 200 },
    intendedOrigins: ['https://any-site.example'],
    assumed:
      "ALLOWED_ORIGINS and ALLOWED_METHODS assumed unset, so origin '*' and methods '*' with credentials: true; https://any-site.example stands for any page origin.",
    via: 'cors',
  },
  {
    source: { repo: 'MoWael11/Portfolio', path: 'server/src/config/corsOptions.ts', commit: 'ba494f0a646dbe39cb4c1e86da66e597e5804de7' },
    written: '(an origin function: read it at its source, which the options below restate)',
    options: {
      origin: (origin: string | undefined, callback: OriginCallback): void => {
        const allowedOrigins = ['http://localhost:3000'];
        if (origin === undefined || allowedOrigins.indexOf(origin) === -1 || !origin) {
          callback(null, true);
        } else {
          callback(new Error('Not allowed by CORS'));
        }
      },
      credentials: true,
      optionsSuccessStatus: 200,
    },
    intendedOrigins: ['http://localhost:3000'],
    assumed:
      'allowedOrigins = [process.env.app_URL] (server/src/config/allowedOrigins.ts, commit 65a95e25528959074e830952a78e51b1a07a0802); app_URL assumed http://localhost:3000. The test is inverted (== -1): every origin NOT in the list is allowed and the listed one is refused.',
    via: 'cors',
  },
  {
    source: { repo: 'appletxm/koa2-test', path: 'scripts/express-cross.js', commit: '58bbc7cbfc67d0671f1350f5e8f2b5122e6d097e' },
    written: '(an origin function: read it at its source, which the options below restate)',
    options: {
      credentials: true,
      origin: (origin: string | undefined, callback: OriginCallback): void => {
        const whitelist = ['http://localhost:4200', 'http://example2.com'];
        if (origin !== undefined && whitelist.includes(origin)) return callback(null, true);
        callback(new Error('Not allowed by CORS'));
      },
    },
    intendedOrigins: ['http://localhost:4200', 'http://example2.com'],
    assumed: "whitelist = ['http://localhost:4200', 'http://example2.com'] in the same file. No !origin branch.",
    via: 'cors',
  },
  {
    source: { repo: 'kestrel-org/kestrel', path: 'backend/src/configs/cors.js', commit: '2d40e7066f836f2f497c1341909ef24f3e200f05' },
    written: '(an origin function: read it at its source, which the options below restate)',
    options: {
      credentials: true,
      origin: (origin: string | undefined, callback: OriginCallback): void => {
        const whitelist = ['http://localhost:4200', 'http://localhost:4000'];
        if ((origin !== undefined && whitelist.indexOf(origin) !== -1) || !origin) {
          callback(null, true);
        } else {
          callback(new Error('Not allowed by CORS'));
        }
      },
    },
    intendedOrigins: ['http://localhost:4200', 'http://localhost:4000'],
    assumed: "config.whitelist = ['http://localhost:4200', 'http://localhost:4000'] in the same file.",
    via: 'cors',
  },
  {
    source: { repo: 'Projeto-Migrantes/support-migrants-api', path: 'src/config/cors.config.js', commit: '23ca051a978191ed9927fd0a44af6770bd92d606' },
    written:
      "{\n  exponsedHeaders: ['Authorization'],\n  methods: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'],\n  allowedHeaders: ['Content-Type', 'Authorization'],\n}",
    options: { exponsedHeaders: ['Authorization'], methods: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'], allowedHeaders: ['Content-Type', 'Authorization'] },
    intendedOrigins: ['https://any-site.example'],
    assumed:
      'No origin: the default \'*\'. exponsedHeaders is a misspelling of exposedHeaders and is ignored, so the front end cannot read Authorization. (Another stored version spells it exposedHeaders and sets origin: "*".)',
    via: 'cors',
  },
  {
    source: { repo: 'chauminhthien/node-api-typescript', path: 'src/configs/pro/cors.ts', commit: 'd375760fd903c114f77e796d40925a408dfba1d8' },
    written:
      "{\n  origin: '*', // allow to server to accept request from different origin\n  methods: 'GET,HEAD,PUT,PATCH,POST,DELETE',\n  credentials: true // allow session cookie from browser to pass through\n}",
    options: { origin: '*', methods: 'GET,HEAD,PUT,PATCH,POST,DELETE', credentials: true },
    intendedOrigins: ['https://any-site.example'],
    assumed: "origin '*' with credentials, for session cookies: any page origin was meant; https://any-site.example stands for one.",
    via: 'cors',
  },
  {
    source: { repo: 'youssefbenabbou123/CofeeArtBackend', path: 'server.js', commit: '1d50ea19255dd4f6b90952aa93a620282df2131e' },
    written: '(an origin function: read it at its source, which the options below restate)',
    options: {
      origin: (origin: string | undefined, callback: OriginCallback): void => {
        const allowedOrigins: ReadonlyArray<string | RegExp> = [
          'http://localhost:3000',
          'http://localhost:3001',
          'http://localhost:3002',
          'http://localhost:3003',
          'http://localhost:5173',
          'http://localhost:5174',
          'http://127.0.0.1:3000',
          'http://127.0.0.1:3001',
          'https://my-project-ovwmn55cv-lhehlolbro123-2933s-projects.vercel.app',
          'https://my-project-78bhaky0t-lhehlolbro123-2933s-projects.vercel.app',
          'https://my-project-bewi697zq-lhehlolbro123-2933s-projects.vercel.app',
          'https://my-project-oz60xibo6-lhehlolbro123-2933s-projects.vercel.app',
          /^https:\/\/.*\.vercel\.app$/,
        ];
        if (!origin) {
          return callback(null, true);
        }
        const isAllowed = allowedOrigins.some((allowedOrigin) => (allowedOrigin instanceof RegExp ? allowedOrigin.test(origin) : allowedOrigin === origin));
        if (isAllowed) {
          return callback(null, true);
        }
        return callback(new Error(`CORS policy: Origin ${origin} not allowed`));
      },
      credentials: true,
      methods: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
      allowedHeaders: ['Content-Type', 'Authorization', 'X-Requested-With', 'Accept'],
      exposedHeaders: ['Content-Range', 'X-Content-Range'],
    },
    intendedOrigins: ['http://localhost:3000', 'http://localhost:5173', 'https://my-project-78bhaky0t-lhehlolbro123-2933s-projects.vercel.app'],
    assumed:
      "allowedOrigins (strings and the RegExp /^https:\\/\\/.*\\.vercel\\.app$/, which admits every Vercel app) is defined just above in server.js. The same options are also mounted as app.options('*', cors(corsOptions)).",
    via: 'cors',
  },
  {
    source: { repo: 'MEASWs/Chatapp', path: 'backend/src/index.js', commit: '68e801e3d98d10bd83a97feb838ff333815f7e22' },
    written:
      '{            // for cross-origin resource sharing\n    origin: "http://localhost:5173", // allow requests from client url\n    credentials: true, // allow credentials (cookies) to be sent\n}',
    options: { origin: 'http://localhost:5173', credentials: true },
    intendedOrigins: ['http://localhost:5173'],
    assumed: "(Another stored version lists ['http://localhost:5173', 'http://localhost:5174', process.env.CLIENT_URL].)",
    via: 'cors',
  },
  {
    source: { repo: 'ElJohnnie/wtwt-back-end', path: 'src/infrastructure/express/config/corsConfig.ts', commit: '31aac3ba88443abc9d1342c385b4846af669ecb4' },
    written: '(an origin function: read it at its source, which the options below restate)',
    options: {
      origin: (origin: string | undefined, callback: OriginCallback): void => {
        const allowedOrigins = ['0.0.0.0:3000'];
        if ((origin !== undefined && allowedOrigins.indexOf(origin) !== -1) || !origin) {
          callback(null, true);
        } else {
          callback(new Error('Not allowed by CORS'));
        }
      },
    },
    intendedOrigins: ['http://localhost:3000'],
    assumed:
      '.env.example (commit 057b4b011eb5b2baac1da0afbe5e6ba54162d513) sets CLIENT_HOST=0.0.0.0 and CLIENT_PORT=3000, so the allowed entry is "0.0.0.0:3000": no scheme, and a bind address rather than the host the browser shows. The page was meant to be the front end on port 3000.',
    via: 'cors',
  },
  {
    source: { repo: 'askimobi-beep/veridate', path: 'server/config/corsOptions.js', commit: '0db2df97644af89e49ef2c167f8152c7943b84e0' },
    written: '(an origin function: read it at its source, which the options below restate)',
    options: {
      origin: (origin: string | undefined, callback: OriginCallback): void => {
        const allowedOrigins = [
          'http://localhost:5173',
          'https://localhost:5173',
          'https://veridate.vercel.app',
          'https://www.veridate.vercel.app',
          'https://veridate-dwiq4n7oy-veridates-projects.vercel.app',
        ];
        if (!origin || allowedOrigins.includes(origin)) {
          callback(null, true);
        } else {
          callback(new Error('Not allowed by CORS'));
        }
      },
      credentials: true,
    },
    intendedOrigins: ['http://localhost:5173', 'https://veridate.vercel.app', 'https://veridate-dwiq4n7oy-veridates-projects.vercel.app'],
    assumed:
      'allowedOrigins is defined at the top of the same file (includes both http:// and https://localhost:5173, and a www. variant of a vercel.app host).',
    via: 'cors',
  },
  {
    source: { repo: 'joequich/chatty-backend', path: 'src/cors.ts', commit: '64699a91d4765102da6c58793d24d91809f43888' },
    written:
      "{\n  origin: [/^https?:\\/\\/(localhost|127.0.0.1|10.0.2.2)(:\\d{0,4})?$/],\n  credentials: true,\n  allowedHeaders: ['Content-Type', 'Authorization', 'origin'],\n}",
    options: {
      origin: [/^https?:\/\/(localhost|127.0.0.1|10.0.2.2)(:\d{0,4})?$/],
      credentials: true,
      allowedHeaders: ['Content-Type', 'Authorization', 'origin'],
    },
    intendedOrigins: ['http://localhost:3000', 'http://10.0.2.2:3000'],
    assumed:
      'Local dev and the Android emulator host 10.0.2.2 were meant. The dots are unescaped (127.0.0.1 matches 127a0b0c1) and :\\d{0,4} refuses five-digit ports such as 19006.',
    via: 'cors',
  },
  {
    source: { repo: 'jonasearth/websocket-api', path: 'src/config/cors/default-cors.config.ts', commit: 'c6d2e260cfecccff2490c968dc3a5eb167c0227c' },
    written: '{\n  origin: [/^(http|https):\\/\\/(localhost|127.0.0.1):\\d{2,4}$/],\n  credentials: true,\n}',
    options: { origin: [/^(http|https):\/\/(localhost|127.0.0.1):\d{2,4}$/], credentials: true },
    intendedOrigins: ['http://localhost:3000'],
    assumed: 'Any local dev port was meant; :\\d{2,4} requires a port and refuses five-digit ones; the dots are unescaped.',
    via: 'cors',
  },
  {
    source: { repo: 'jpzicato/task-manager', path: 'src/middlewares/cors.js', commit: '78ab79fe6329b9f5a99ffca76fe5aa4f9d6075e3' },
    written:
      "{\n  origin: /^http:\\/\\/(?:localhost|(?:\\d{1,3}\\.){3}\\d{1,3}):(\\d+)$/,\n  methods: ['GET', 'POST'],\n  credentials: true,\n  allowedHeaders: ['Content-Type', 'Authorization'],\n}",
    options: {
      origin: /^http:\/\/(?:localhost|(?:\d{1,3}\.){3}\d{1,3}):(\d+)$/,
      methods: ['GET', 'POST'],
      credentials: true,
      allowedHeaders: ['Content-Type', 'Authorization'],
    },
    intendedOrigins: ['http://localhost:5173', 'http://192.168.1.10:5173'],
    assumed: 'localhost or any IPv4 address, any port, over http; the two origins are representatives (assumed).',
    via: 'cors',
  },
  {
    source: { repo: 'sastraxi/w8d3-demo', path: 'backend/index.js', commit: '4968aaa209ab8142a4cc5ed82075129230e99a74' },
    written: '(an origin function: read it at its source, which the options below restate)',
    options: { origin: (_origin: string | undefined, callback: OriginCallback): void => callback(null, true) },
    intendedOrigins: ['https://any-site.example'],
    assumed: 'Reflects any origin (same as origin: true); https://any-site.example stands for one.',
    via: 'cors',
  },
  {
    source: { repo: 'raufpratama/netlify-express', path: 'util/cors.config.js', commit: '1087a51cf880fb8d40c343790d59c0baa7b1817f' },
    written:
      "{\n    origin: ['https://test-eatsyapp.netlify.com',/\\.test-eatsyapp.netlify\\.com$/,'https://eatsyapp.co/',/\\.eatsyapp\\.co$/,'http://localhost:3000'],\n    optionsSuccessStatus: 200 // some legacy browsers (IE11, various SmartTVs) choke on 204\n}",
    options: {
      origin: ['https://test-eatsyapp.netlify.com', /\.test-eatsyapp.netlify\.com$/, 'https://eatsyapp.co/', /\.eatsyapp\.co$/, 'http://localhost:3000'],
      optionsSuccessStatus: 200,
    },
    intendedOrigins: ['https://test-eatsyapp.netlify.com', 'https://eatsyapp.co', 'https://www.eatsyapp.co', 'http://localhost:3000'],
    assumed:
      "Mixed strings and RegExps. 'https://eatsyapp.co/' has a trailing slash, so the apex site only passes if another entry matches; one dot in the first RegExp is unescaped.",
    via: 'cors',
  },
  {
    source: { repo: 'douglira/RocketSeat', path: 'nodejs(express+redis)/config/cors.js', commit: 'fabc6bb2208fd43f8bf30fabb2fe4310a48124fa' },
    written:
      "{\n  origin: ['http://127.0.0.1:3000', 'http://localhost:3000'],\n  methods: ['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'PATCH'],\n  optionsSuccessStatus: 204\n}",
    options: {
      origin: ['http://127.0.0.1:3000', 'http://localhost:3000'],
      methods: ['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'PATCH'],
      optionsSuccessStatus: 204,
    },
    intendedOrigins: ['http://127.0.0.1:3000', 'http://localhost:3000'],
    assumed: '',
    via: 'cors',
  },
  {
    source: { repo: 'jmlbc/test_project', path: 'src/config/cors.js', commit: '9227cee11a7a00454e0d63dec4711f888d9c9fa7' },
    written:
      '{\n    origin: ["http://localhost:3000"],\n    methods: ["GET", "POST", "PUT", "DELETE", "PATCH"],\n    allowedHeaders: ["Content-Type", "Authorization"],\n    credentials: true,\n    exposedHeaders: ["Authorization"],\n}',
    options: {
      origin: ['http://localhost:3000'],
      methods: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'],
      allowedHeaders: ['Content-Type', 'Authorization'],
      credentials: true,
      exposedHeaders: ['Authorization'],
    },
    intendedOrigins: ['http://localhost:3000'],
    assumed: '',
    via: 'cors',
  },
  {
    source: { repo: 'ricardoiwata/teste-tecnico-kaizen', path: 'backend/src/app.js', commit: '96a8faaa47489042b6c2185bb92f73608e4c8371' },
    written: '{\n    origin: process.env.CORS_ORIGIN?.split(",") || "*",\n    credentials: true,\n  }',
    options: { origin: '*', credentials: true },
    intendedOrigins: ['http://localhost:5173'],
    assumed: "CORS_ORIGIN assumed unset, so '*' with credentials: true. The front end is assumed to be a local Vite app at http://localhost:5173.",
    via: 'cors',
  },
  {
    source: { repo: 'sanjainandhagopal/HTTP-Webserver-Simulator-API', path: 'config/corsOption.js', commit: '50e5636944e627eb2ce5ba009d309ebb8155215e' },
    written: '(an origin function: read it at its source, which the options below restate)',
    options: {
      origin: (origin: string | undefined, callback: OriginCallback): void => {
        const whitelist = ['https://www.google.com', 'http://127.0.0.1:5500', 'http://localhost:3500'];
        if ((origin !== undefined && whitelist.indexOf(origin) !== -1) || !origin) {
          callback(null, true);
        } else {
          callback(new Error('Note allowed by CORS'));
        }
      },
      optionsSuccessStatus: 200,
    },
    intendedOrigins: ['https://www.google.com', 'http://127.0.0.1:5500', 'http://localhost:3500'],
    assumed: 'whitelist is defined at the top of the same file (VS Code Live Server on 127.0.0.1:5500).',
    via: 'cors',
  },
  {
    source: { repo: 'muhammedkalabasi10/invoice-backend', path: 'config/corsOptions.js', commit: '549532f8b9b115bdd999406c0c52b6eb612475a2' },
    written: '(an origin function: read it at its source, which the options below restate)',
    options: {
      origin: (origin: string | undefined, callback: OriginCallback): void => {
        if ((origin !== undefined && ['https://dulcet-pasca-ee0ead.netlify.app'].indexOf(origin) !== -1) || !origin) {
          callback(null, true);
        } else {
          callback(new Error('Not allowed by CORS'));
        }
      },
      credentials: true,
      optionsSuccessStatus: 200,
    },
    intendedOrigins: ['https://dulcet-pasca-ee0ead.netlify.app'],
    assumed: '',
    via: 'cors',
  },
  {
    source: { repo: 'mostafa99hosny/front-logic', path: 'src/shared/configs/cors.config.js', commit: '3bf524a741e644c6e3df8aad28a57ac65c458587' },
    written:
      "{\n  origin: '*',           // tighten for production\n  methods: ['GET','POST','PUT','PATCH','DELETE','OPTIONS'],\n  allowedHeaders: ['Content-Type','Authorization'],\n  credentials: false,\n}",
    options: {
      origin: '*',
      methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      allowedHeaders: ['Content-Type', 'Authorization'],
      credentials: false,
    },
    intendedOrigins: ['https://any-site.example'],
    assumed: "origin '*' without credentials: any page origin; https://any-site.example stands for one.",
    via: 'cors',
  },
  {
    source: { repo: 'andersonmadeira/seapass-api-node', path: 'src/middlewares/cors.js', commit: '2b90bd720322711979bae0f997aaca5da1ed56f5' },
    written: "{\n  origin: process.env.CORS_ALLOWED_ORIGIN,\n  exposedHeaders: ['Authorization'],\n}",
    options: { origin: 'http://localhost:3000', exposedHeaders: ['Authorization'] },
    intendedOrigins: ['http://localhost:3000'],
    assumed:
      'CORS_ALLOWED_ORIGIN assumed http://localhost:3000 (not in the stored files). If it is unset, origin is undefined and cors falls back to its default "*".',
    via: 'cors',
  },
  {
    source: { repo: 'DeviantRacoon/todo-docker', path: 'src/config/cors.config.ts', commit: '028c1b87333417790e097a3bd7becef5e456ddde' },
    written: '(an origin function: read it at its source, which the options below restate)',
    options: {
      origin: (origin: string | undefined, callback: OriginCallback): void => {
        const allowedOrigins = ['*'];
        callback(null, !origin || allowedOrigins.includes(origin));
      },
      exposedHeaders: ['Authorization'],
    },
    intendedOrigins: ['https://any-site.example'],
    assumed:
      "allowedOrigins = ['*'] in the same file: the app meant any origin, but includes() compares literally, so only a request whose Origin is the string '*' passes; https://any-site.example stands for any page origin.",
    via: 'cors',
  },
  {
    source: { repo: 'SlavikLLL/booking-back', path: 'config/corsOptions.js', commit: '0c5e73a21d0989986c15fe23371a11259a3fc411' },
    written: '(an origin function: read it at its source, which the options below restate)',
    options: {
      // allowOrigins.indexOf(origin !== -1 || !origin) is indexOf(true), i.e. -1, which is truthy: every origin is allowed
      origin: (_origin: string | undefined, callback: OriginCallback): void => {
        callback(null, true);
      },
      Credential: true,
      optionsSuccessState: 200,
    },
    intendedOrigins: ['http://localhost:3000'],
    assumed:
      "allowOrigins = ['http://localhost:3000'] (config/allowOrigins.js, same commit). A misplaced parenthesis makes the test always pass; Credential and optionsSuccessState are misspelt and ignored.",
    via: 'cors',
  },
  {
    source: { repo: 'iftachbt/my-game', path: 'server/cors.service.js', commit: '0d35107483a3a584feb6a611e4d340c802756327' },
    written: '(an origin function: read it at its source, which the options below restate)',
    options: {
      credentials: true,
      origin: (origin: string | undefined, callback: OriginCallback): void => {
        const whitelist = ['http://localhost:3000'];
        if (origin !== undefined && whitelist.includes(origin)) return callback(null, true);
        callback(new Error('Not allowed by CORS'));
      },
    },
    intendedOrigins: ['http://localhost:3000'],
    assumed: "whitelist = ['http://localhost:3000'] in the same file. No !origin branch.",
    via: 'cors',
  },
  {
    source: { repo: 'Andreaiuliano94/webapp', path: 'server/src/config/corsConfig.ts', commit: '32a9f59624a2fdbbac37b8f7ad53f96092a2a541' },
    written:
      "{\n origin: process.env.CLIENT_URL || 'http://localhost:5173',\n  methods: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],\n  credentials: true,\n  optionsSuccessStatus: 200,\n  allowedHeaders: ['Content-Type', 'Authorization'],\n}",
    options: {
      origin: 'http://localhost:5173',
      methods: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
      credentials: true,
      optionsSuccessStatus: 200,
      allowedHeaders: ['Content-Type', 'Authorization'],
    },
    intendedOrigins: ['http://localhost:5173'],
    assumed: 'CLIENT_URL unset, so the fallback written in the code.',
    via: 'cors',
  },
  {
    source: { repo: 'hariii15/stock-pro-backend', path: 'app.js', commit: '6a45de793b7b648c4a257ff44d7726a668f7e98c' },
    written: "{\n  origin: process.env.FRONTEND_URL || 'https://stock-pro-frontend-one.vercel.app/',\n  credentials: true\n}",
    options: { origin: 'https://stock-pro-frontend-one.vercel.app/', credentials: true },
    intendedOrigins: ['https://stock-pro-frontend-one.vercel.app'],
    assumed: 'FRONTEND_URL unset, so the fallback, which has a trailing slash.',
    via: 'cors',
  },
  {
    source: { repo: 'yusron007/case_live-attaendance', path: 'BE_Presensi/config/cors.js', commit: 'f6c70168c232d73ba3b0b6782fe7a056941f3374' },
    written: '(an origin function: read it at its source, which the options below restate)',
    options: {
      origin: (origin: string | undefined, callback: OriginCallback): void => {
        if ((origin !== undefined && ['http://localhost:4200'].indexOf(origin) !== -1) || !origin) {
          callback(null, true);
        } else {
          callback(new Error('Not allowed by CORS'));
        }
      },
      credentials: true,
      optionsSuccessStatus: 200,
    },
    intendedOrigins: ['http://localhost:4200'],
    assumed: '',
    via: 'cors',
  },
  {
    source: { repo: 'bornovdev/FrameFlow', path: 'server/src/config/corsOptions.ts', commit: '94f70437e07cbf7c0d730fc615a3d2001e056d19' },
    written: '(an origin function: read it at its source, which the options below restate)',
    options: {
      origin: (origin: string | undefined, callback: OriginCallback): void => {
        const allowedOrigins = ['http://localhost:3000'];
        if (!origin || origin === 'null' || allowedOrigins.includes(origin)) {
          callback(null, true);
        } else {
          callback(new Error('Not allowed by CORS'));
        }
      },
      credentials: true,
      allowedHeaders: ['Content-Type', 'Authorization'],
    },
    intendedOrigins: ['http://localhost:3000'],
    assumed:
      "allowedOrigins = ['http://localhost:3000'] (server/src/config/allowedOrigins.ts, same commit). The 'null' branch grants the opaque origin (sandboxed iframes, file:// pages) with credentials.",
    via: 'cors',
  },
  {
    source: { repo: 'olestatchyn/Express', path: 'services/corsoptions.ts', commit: '32114fa0a4ce7d21055acf15f8e943a2c33a6a7a' },
    written: '(an origin function: read it at its source, which the options below restate)',
    options: {
      origin: (origin: string | undefined, callback: OriginCallback): void => {
        if (origin === undefined) {
          callback(null, true);
        } else {
          callback(new Error('Not allowed by CORS'));
        }
      },
    },
    intendedOrigins: [],
    assumed:
      'allowedOrigins = [undefined] in the same file: only requests without an Origin header (same-origin GETs, curl, Postman) pass; no cross-origin page was meant.',
    via: 'cors',
  },
  {
    source: { repo: 'hane-smitter/MERN_login_system', path: 'server/src/config/cors/cors.js', commit: '61e2831694344e1b7aec21ccd31333c8ac01f06a' },
    written: '(an origin function: read it at its source, which the options below restate)',
    options: {
      origin: (origin: string | undefined, callback: OriginCallback): void => {
        const allowlist = ['http://localhost:3000', 'http://localhost:8000'];
        if (origin !== undefined && allowlist.includes(origin)) {
          callback(null, true);
        } else {
          callback(new Error('Not allowed by CORS'));
        }
      },
      credentials: true,
      exposedHeaders: ['WWW-Authenticate'],
    },
    intendedOrigins: ['http://localhost:3000'],
    assumed: "allowlist = ['http://localhost:3000', 'http://localhost:8000'] in the same file (8000 is the API itself). No !origin branch.",
    via: 'cors',
  },
];
