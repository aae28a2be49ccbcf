// The part of express 5 the console's UI stage uses (express ships no types, and @types/express is not installed).
declare module 'express' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  type Next = (err?: unknown) => void;
  type Handler = (req: IncomingMessage, res: ServerResponse, next: Next) => void;

  interface StaticOptions {
    index?: string | false;
    maxAge?: number;
    fallthrough?: boolean;
    redirect?: boolean;
    dotfiles?: 'allow' | 'deny' | 'ignore';
    setHeaders?: (res: ServerResponse, path: string) => void;
  }

  interface Application {
    (req: IncomingMessage, res: ServerResponse, done?: Next): void;
    use(path: string, ...handlers: Handler[]): Application;
    use(...handlers: Handler[]): Application;
    get(path: string | RegExp, ...handlers: Handler[]): Application;
    disable(setting: string): Application;
    set(setting: string, value: unknown): Application;
  }

  interface Express {
    (): Application;
    static(root: string, options?: StaticOptions): Handler;
  }

  const express: Express;
  export default express;
}
