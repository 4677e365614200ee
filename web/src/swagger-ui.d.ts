/** The part of Swagger UI's bundle (swagger-ui-dist has no types) that docs.ts uses. */
declare module 'swagger-ui-dist/swagger-ui-es-bundle.js' {
  export interface SwaggerUIOptions {
    url: string;
    domNode: HTMLElement;
    deepLinking?: boolean;
    docExpansion?: 'list' | 'full' | 'none';
    defaultModelsExpandDepth?: number;
    displayRequestDuration?: boolean;
    onComplete?: () => void;
  }
  export interface SwaggerUI {
    /** Sets the value of an API key or bearer security scheme for "Try it out". */
    preauthorizeApiKey(scheme: string, value: string): void;
  }
  const SwaggerUIBundle: (options: SwaggerUIOptions) => SwaggerUI;
  export default SwaggerUIBundle;
}
