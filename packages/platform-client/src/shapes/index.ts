export * from './objects';
export { ROUTE_SHAPES, routeShape, type RouteShape } from './routes';
export { PlatformShapeError, type ShapeProblem } from './shape-error';
export { checkResponseShape, shapeCheckedRequest } from './check-response';
export { shapeErrorReporter } from './report';
